#include "plugin/ramp_decision.h"

#include <algorithm>
#include <set>

#include "core/jct/estimator.h"
#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/slurm/slurm_syntax.h"

namespace pacml::plugin {

namespace {

// The job that stands for a server no placement may use.
constexpr JobId kHeld = 1;

// A decision on a RAMP cluster: the shared state, and the estimator, the
// cluster now and idle, and the placement chosen.
struct RampDecision : Decision {
  explicit RampDecision(Decision&& shared) : Decision(std::move(shared)) {}
  std::optional<JctEstimator> estimator;
  double unit = 1;  // seconds per profile time unit
  // The cluster now, and with only unusable nodes excluded (for queueing).
  std::optional<ClusterState> now_state, idle_state;
  std::set<int> queued_for;  // servers queued jobs wait for
  Estimate est;
  int free_servers = 0;
  int action = 0;  // the policy's: the degree, 0 when blocked
};

// A RAMP placement's node count against the user's -N: a RAMP block's size
// follows from the degree, so a count outside -N is refused, never replaced.
std::optional<SubmitResult> check_node_count(const RampDecision& d) {
  const int count = d.est.servers_used();
  if ((d.in.min_nodes > 0 && count < d.in.min_nodes) ||
      (d.in.max_nodes > 0 && count > d.in.max_nodes))
    return rejection(
        RejectKind::kBlocked,
        messages::ramp_count_outside(count, d.est.degree, d.in.min_nodes, d.in.max_nodes));
  return std::nullopt;
}

// The graph, its step count and the estimator; the job alone on one server.
std::optional<SubmitResult> load_graph(RampDecision& d, EngineState& engine) {
  if (auto done = read_graph(d, engine)) return *done;
  d.steps = d.req.steps.value_or(d.cfg.default_steps);
  d.estimator.emplace(d.a.topology, d.a.profile, static_cast<int>(d.steps));
  d.unit = d.a.profile.time_unit == "ms" ? 1e-3 : 1.0;
  d.seq_s = d.estimator->sequential_jct(*d.graph) * d.unit;
  return std::nullopt;
}

// Free servers: idle, available nodes of the mapping that no recent decision
// holds. Reservations whose job is seen running have done their work.
void read_cluster(RampDecision& d, Reservations& reservations) {
  std::set<int> reserved;
  for (auto it = reservations.begin(); it != reservations.end();) {
    if (it->second.until <= d.in.now) {
      it = reservations.erase(it);
      continue;
    }
    for (int s : it->second.servers) (it->second.queued ? d.queued_for : reserved).insert(s);
    ++it;
  }
  d.now_state.emplace(d.a.topology);
  d.idle_state.emplace(d.a.topology);
  const std::set<std::string> excluded(d.in.excluded_nodes.begin(), d.in.excluded_nodes.end());
  for (int s = 0; s < d.a.topology.num_servers(); ++s) {
    // --exclude nodes are never part of a placement (the job keeps its --exclude)
    const NodeStatus status = d.names[s].empty()           ? NodeStatus::kUnknown
                              : excluded.count(d.names[s]) ? NodeStatus::kUnavailable
                                                           : d.view.node_status(d.names[s]);
    if (status == NodeStatus::kBusy && reserved.erase(s)) {
      for (auto& [id, r] : reservations)
        if (!r.queued)
          r.servers.erase(std::remove(r.servers.begin(), r.servers.end(), s), r.servers.end());
    }
    if (status != NodeStatus::kFree || reserved.count(s))
      d.now_state->occupy(kHeld, {s});
    else
      ++d.free_servers;
    if (status == NodeStatus::kUnavailable || status == NodeStatus::kUnknown)
      d.idle_state->occupy(kHeld, {s});
  }
}

// The policy's action on `cluster`, and its estimate.
int evaluate(RampDecision& d, const ClusterState& cluster, Estimate& out) {
  const std::vector<bool> mask = action_mask(cluster, kMaxAction);
  DecisionContext ctx{*d.graph, d.beta, cluster, mask, *d.estimator, &d.a.cache, d.a.rng};
  const int action = d.a.policy->choose(ctx);
  if (action > 0) out = d.estimator->estimate(*d.graph, action, d.beta, cluster, &d.a.cache);
  return action;
}

bool meets(const RampDecision& d, const Estimate& e) {
  if (!e.placed) return false;
  if (d.bound_s) return e.jct * d.unit <= *d.bound_s;
  return e.accepted();
}

// Why a job is blocked: what the policy chose, and the fastest placement now.
std::string blocked_reason(RampDecision& d) {
  const ClusterState& now = *d.now_state;
  double best = -1;
  int best_action = 0, best_servers = 0;
  for (int v : valid_actions(action_mask(now, kMaxAction))) {
    if (v == 0) continue;
    const Estimate e = d.estimator->estimate(*d.graph, v, d.beta, now, &d.a.cache);
    if (e.placed && (best < 0 || e.jct < best))
      best = e.jct, best_action = v, best_servers = e.servers_used();
  }
  std::string reason =
      "model " + d.graph->name() + ", " + std::to_string(d.steps) + " steps, must " +
      messages::need(d.need()) + "; policy " + d.cfg.policy + " " +
      (d.action > 0 ? "chose degree " + std::to_string(d.action) +
                          (d.est.placed ? " (" + messages::seconds(d.est.jct * d.unit) + ")"
                                        : " (no free RAMP block)")
                    : std::string("found no degree that meets it")) +
      " with " + std::to_string(d.free_servers) + " of " +
      std::to_string(d.a.topology.num_servers()) + " servers free";
  if (best >= 0)
    reason += "; the fastest placement now is degree " + std::to_string(best_action) + " on " +
              std::to_string(best_servers) + " servers, " + messages::seconds(best * d.unit);
  return reason;
}

// Queue mode: the placement the policy picks on the idle cluster, preferring
// servers no other queued job waits for so that queued jobs spread over the
// cluster instead of all waiting for the first block.
bool queue(RampDecision& d) {
  ClusterState spread = *d.idle_state;
  for (int s : d.queued_for)
    if (spread.is_free(s)) spread.occupy(kHeld, {s});
  Estimate queued;
  int action = evaluate(d, spread, queued);
  if (!(action > 0 && meets(d, queued))) action = evaluate(d, *d.idle_state, queued);
  if (!(action > 0 && meets(d, queued))) return false;
  d.outcome = Outcome::kQueued;
  d.est = queued;
  d.action = action;
  return true;
}

// The policy's choice on the cluster now; a blocked job is rejected, or
// queued (on_block: queue) if the idle cluster could meet its requirement.
// The chosen placement's JCT is also kept in seconds (d.jct_s), as the shared
// steps read it.
std::optional<SubmitResult> choose_placement(RampDecision& d, EngineState& engine) {
  d.action = evaluate(d, *d.now_state, d.est);
  if (!(d.action > 0 && meets(d, d.est))) {
    d.blocked_reason = blocked_reason(d);
    const bool queued = d.cfg.on_block == OnBlock::kQueue && queue(d);
    d.world_log = {{"action", d.action}, {"free_servers", d.free_servers}};
    if (!queued) {
      if (d.cfg.on_block == OnBlock::kQueue)
        d.blocked_reason += "; it cannot be met on an idle cluster either";
      return reject_blocked(d, engine);
    }
  }
  d.world_log = {{"action", d.action}, {"free_servers", d.free_servers}};
  d.jct_s = d.est.jct * d.unit;
  return std::nullopt;
}

// An accepted (or queued) job's log record: the block it was placed on.
nlohmann::json placed_record(const RampDecision& d, const SubmitResult& r, double latency) {
  nlohmann::json coords = nlohmann::json::array();
  for (int s : d.est.placement.servers) {
    const ServerCoord c = d.a.topology.coord(s);
    coords.push_back({c.c, c.r, c.s});
  }
  nlohmann::json rec = log_record(d, r.decision_id, d.outcome);
  rec["degree"] = d.est.degree;
  rec["node_count"] = r.num_nodes;
  rec["nodes"] = slurm::join_hostlist(r.nodes);
  rec["servers"] = d.est.placement.servers;
  rec["coords"] = coords;
  rec["jct"] = d.jct_s;
  log_time_limit(d, r, rec);
  rec["latency_ms"] = latency;
  return rec;
}

// Accepted (or queued): the rewrite, the reservation and the log line.
SubmitResult accept(RampDecision& d, EngineState& engine) {
  SubmitResult r = accepted_result(d, engine);
  for (int s : d.est.placement.servers) r.nodes.push_back(d.names[s]);
  r.num_nodes = static_cast<int>(r.nodes.size());
  set_slurm_deadline(d, r);
  const bool queued = d.outcome == Outcome::kQueued;
  r.annotation = "pacml-decision:degree=" + std::to_string(d.est.degree) +
                 ",action=" + std::to_string(d.action) + ",servers=" + std::to_string(r.num_nodes) +
                 ",jct=" + messages::number(d.jct_s, 6) + "s,beta=" + messages::number(d.req_beta) +
                 ",policy=" + d.cfg.policy + (queued ? ",queued" : "") +
                 ",decision=" + r.decision_id;
  if (d.cfg.reservation_ttl > 0)
    engine.reservations[r.decision_id] =
        Reservation{d.est.placement.servers, d.in.now + d.cfg.reservation_ttl, queued, 0, d.in.uid};

  const double latency = d.elapsed_ms();
  engine.log.add(r.decision_id, placed_record(d, r, latency), d.cfg.resolve_job_ids, d.in.now, 60);
  r.log_message = accepted_log_message(
      d, r.decision_id, latency,
      (queued ? "queued at degree " : "degree ") + std::to_string(d.est.degree) + " on " +
          slurm::join_hostlist(r.nodes) + " (" + std::to_string(r.num_nodes) + " servers)");
  return r;
}

}  // namespace

SubmitResult decide_ramp(Decision&& shared, EngineState& engine) {
  RampDecision d(std::move(shared));
  if (auto done = load_graph(d, engine)) return *done;
  if (auto done = set_requirement(d)) return *done;
  if (!d.in.required_nodes.empty())
    return rejection(RejectKind::kBadRequest, messages::ramp_refuses_node_list());
  read_cluster(d, engine.reservations);
  if (auto done = choose_placement(d, engine)) return *done;
  if (auto done = check_node_count(d)) return *done;
  if (auto done = set_time_limit(d)) return *done;
  return accept(d, engine);
}

}  // namespace pacml::plugin
