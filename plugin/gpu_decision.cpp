#include "plugin/gpu_decision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/correction/step_correction.h"
#include "core/gpu/placement.h"
#include "core/gpu/policy.h"
#include "core/util/hash.h"
#include "core/zoo/model_zoo.h"
#include "plugin/gpu_plan.h"
#include "plugin/step_correction_source.h"

namespace pacml::plugin {

namespace {

// A decision on a GPU cluster: the shared state, and the job, its durations,
// the GPUs free now and on the idle cluster, and the choice.
struct GpuClusterDecision : Decision {
  explicit GpuClusterDecision(Decision&& shared) : Decision(std::move(shared)) {}
  std::shared_ptr<const ParallelJob> gpu_job;
  DurationModel* durations = nullptr;
  int gpus_per_node = 0;
  bool gres_gpus = false;  // the nodes' GRES show GPUs (else the description's G)
  std::optional<gpu::ClusterState> gpus_now, gpus_idle;
  // What a learned GPU policy also reads (gpu::DecisionInput): this plugin's
  // decisions queued and not started, and the offered load of the last day.
  int queued_jobs = 0;
  double queued_gpus = 0, recent_load = 0;
  int gpus = 0;
  ParallelPlan plan;
  mutable CorrectedRunTimes times;  // pacml.conf's correction: applied (step_correction_source.h)
};

// G: the fewest GPUs any node of the partition reports in its GRES (so that
// ⌈k/G⌉ nodes always hold k GPUs), else the cluster description's.
int gpus_per_node(const GpuClusterDecision& d, int described) {
  int fewest = 0;
  for (const std::string& node : d.names) {
    const int g = node.empty() ? 0 : d.view.node_gpus(node);
    if (g > 0 && (fewest == 0 || g < fewest)) fewest = g;
  }
  return fewest > 0 ? fewest : described;
}

int nodes_for(int gpus, int per_node) {
  return (gpus + per_node - 1) / per_node;
}

// Whether k GPUs fit the node count the user asked for with -N and -w.
bool fits_user_nodes(const GpuClusterDecision& d, int gpus) {
  const int nodes = nodes_for(gpus, d.gpus_per_node);
  if (d.in.min_nodes > 0 && nodes < d.in.min_nodes) return false;
  if (d.in.max_nodes > 0 && nodes > d.in.max_nodes) return false;
  return nodes >= static_cast<int>(d.in.required_nodes.size());
}

gpu::DecisionInput gpu_input(GpuClusterDecision& d, const gpu::ClusterState& state) {
  gpu::DecisionInput in;
  in.deadline = d.bound_s ? *d.bound_s : d.beta * d.seq_s;
  in.requested = d.in.requested_gpus > 0 ? d.in.requested_gpus : 1;
  in.free_gpus = state.free_gpus();
  in.startable = [&d, &state](int k) { return fits_user_nodes(d, k) && state.fits(k); };
  in.seconds = [&d](int k) { return d.times.seconds(d.steps, k); };
  in.traits = [&d](int k) { return d.durations->traits(*d.gpu_job, k); };
  in.job = d.gpu_job.get();
  in.cluster_gpus = state.num_gpus();
  in.gpus_per_server = d.gpus_per_node;
  for (int free : state.free_per_server()) in.free_servers += free == d.gpus_per_node;
  in.queued_jobs = d.queued_jobs;
  in.queued_gpus = d.queued_gpus;
  in.recent_load = d.recent_load;
  in.queue_admission = d.cfg.on_block == OnBlock::kQueue;
  return in;
}

// The policy's GPU count on `state` if it meets the requirement, else 0, or
// gpu::kTurnAway when the policy will not run the job at all.
int gpus_meeting(GpuClusterDecision& d, const gpu::ClusterState& state) {
  const gpu::DecisionInput in = gpu_input(d, state);
  const int k = gpu::choose_gpus(*d.a.gpu_policy, in, d.a.rng);
  if (k == gpu::kTurnAway) return gpu::kTurnAway;
  return k > 0 && in.seconds(k) <= in.deadline ? k : 0;
}

// Why a policy that could start the job (capped:X, the learned policy)
// declined it: what its cheapest start would have cost.
std::string gpu_turned_away_reason(GpuClusterDecision& d) {
  const gpu::ClusterState& now = *d.gpus_now;
  const gpu::DecisionInput in = gpu_input(d, now);
  std::string reason = "model " + d.model_name() + ", " + std::to_string(d.steps) +
                       " steps, must " + messages::need(d.need()) + "; policy " + d.cfg.policy +
                       " turned it away";
  for (int k = 1; k <= now.free_gpus(); ++k)
    if (in.startable(k) && in.seconds(k) <= in.deadline) {
      reason += ": its cheapest start, " + std::to_string(k) + " GPUs for " +
                messages::seconds(in.seconds(k)) + " (" +
                messages::number(k * in.seconds(k) / 3600, 3) + " GPU-hours of " +
                std::to_string(now.num_gpus()) +
                " GPUs), costs the jobs after it more than it gains";
      break;
    }
  return reason;
}

std::string gpu_blocked_reason(GpuClusterDecision& d) {
  const gpu::ClusterState& now = *d.gpus_now;
  const gpu::DecisionInput in = gpu_input(d, now);
  int fastest = 0;
  for (int k = 1; k <= now.free_gpus(); ++k)
    if (in.startable(k) && (fastest == 0 || in.seconds(k) < in.seconds(fastest))) fastest = k;
  std::string reason = "model " + d.model_name() + ", " + std::to_string(d.steps) +
                       " steps, must " + messages::need(d.need()) + "; policy " + d.cfg.policy +
                       " found no GPU count that meets it with " + std::to_string(now.free_gpus()) +
                       " of " + std::to_string(now.num_gpus()) + " GPUs free";
  if (d.in.min_nodes > 0 || d.in.max_nodes > 0 || !d.in.required_nodes.empty())
    reason += messages::within_user_nodes(d.in.min_nodes, d.in.max_nodes,
                                          static_cast<int>(d.in.required_nodes.size()));
  if (fastest > 0 && std::isfinite(in.seconds(fastest)))
    reason += "; the fastest now is " + std::to_string(fastest) + " GPUs, " +
              messages::seconds(in.seconds(fastest));
  return reason;
}

// A zoo model as the physical model costs it on the cluster's device.
std::optional<SubmitResult> zoo_gpu_job(GpuClusterDecision& d) {
  std::shared_ptr<const ParallelJob>& job = d.a.jobs[d.req.model];
  if (!job) {
    try {
      ZooOptions options;
      options.device = d.a.cluster->device;
      job = ParallelJob::from_zoo(d.req.model, options);
    } catch (const InputError& e) {
      d.a.jobs.erase(d.req.model);  // only known models stay cached
      return rejection(RejectKind::kBadRequest, "pacml: " + user_facing(e, "--pacml-model"));
    }
  }
  d.gpu_job = job;
  return std::nullopt;
}

// A graph file (PipeDream or native), read as on a RAMP cluster, costed as
// `pacml estimate --cluster --graph` does: its op times were measured at
// kDefaultProfiledBatch samples per step and the job runs at that batch.
std::optional<SubmitResult> graph_gpu_job(GpuClusterDecision& d, EngineState& engine) {
  if (auto done = read_graph(d, engine)) return *done;
  const std::string key = "graph#" + std::to_string(d.graph->fingerprint());
  if (const auto* job = d.a.graph_jobs.find(key)) {
    d.gpu_job = *job;
    return std::nullopt;
  }
  try {
    d.gpu_job = ParallelJob::from_graph(d.graph->layers(), kDefaultProfiledBatch, 0);
  } catch (const InputError& e) {
    return rejection(RejectKind::kBadRequest,
                     "pacml: " + d.graph_path + ": cannot plan it on GPUs: " + e.what());
  }
  const std::size_t layers = d.graph->layers().layers.size();
  d.a.graph_jobs.insert(key, d.gpu_job,
                        ActiveConfig::kBatchesKept * ActiveConfig::kLayerBytes * layers);
  return std::nullopt;
}

// The job as the physical model costs it, its durations on the partition's
// nodes, and the job alone on one GPU.
std::optional<SubmitResult> load_gpu_job(GpuClusterDecision& d, EngineState& engine) {
  if (d.req.model.empty() && d.req.graph.empty())
    return rejection(RejectKind::kBadRequest, messages::missing_graph());
  if (d.names.empty())
    return rejection(RejectKind::kUnmanagedPartition, messages::no_nodes(d.partition));
  if (auto done = d.req.graph.empty() ? zoo_gpu_job(d) : graph_gpu_job(d, engine)) return *done;
  const std::shared_ptr<const ParallelJob>& job = d.gpu_job;
  d.gpus_per_node = gpus_per_node(d, 0);
  d.gres_gpus = d.gpus_per_node > 0;
  if (!d.gres_gpus) d.gpus_per_node = d.a.cluster->gpus_per_server;
  d.durations = &d.a.durations_for(static_cast<int>(d.names.size()), d.gpus_per_node);
  d.steps = d.req.steps.value_or(d.cfg.default_steps);
  d.times = CorrectedRunTimes(d.cfg.step_correction.get(), *d.durations, *job, d.model_name());
  d.seq_s = static_cast<double>(d.steps) * d.durations->estimator().single_gpu_step_time(*job) *
            d.times.single_gpu_factor();
  return std::nullopt;
}

// Adds this submission to the last day's offered GPU-seconds (at the count
// it asked for) and returns that load per GPU-second of the cluster.
double count_offered(const GpuClusterDecision& d, OfferedLoad& offered) {
  const int cluster_gpus = d.gpus_idle->num_gpus();
  const int k = std::clamp(d.in.requested_gpus, 1, std::max(1, cluster_gpus));
  return offered.add(static_cast<double>(d.in.now), k, d.times.seconds(d.steps, k), cluster_gpus);
}

// GPUs free now (Slurm's idle and allocated GRES, less recent decisions not
// yet started) and on the idle cluster (down, drained, excluded nodes only).
void read_gpu_cluster(GpuClusterDecision& d, EngineState& engine) {
  const int g = d.gpus_per_node;
  d.gpus_now.emplace(d.durations->cluster());
  d.gpus_idle.emplace(d.durations->cluster());
  const std::set<std::string> excluded(d.in.excluded_nodes.begin(), d.in.excluded_nodes.end());
  for (size_t s = 0; s < d.names.size(); ++s) {
    const std::string& node = d.names[s];
    const NodeStatus status = node.empty() ? NodeStatus::kUnknown : d.view.node_status(node);
    const bool off = status == NodeStatus::kUnavailable || status == NodeStatus::kUnknown ||
                     excluded.count(node);
    const int server = static_cast<int>(s);
    if (off) {
      d.gpus_now->take({{server, g}});
      d.gpus_idle->take({{server, g}});
    } else if (status == NodeStatus::kBusy) {
      const int used = std::clamp(d.view.node_gpus_used(node), 0, g);
      if (used > 0) d.gpus_now->take({{server, used}});
    }
  }
  for (auto it = engine.reservations.begin(); it != engine.reservations.end();) {
    if (it->second.until <= d.in.now) {
      it = engine.reservations.erase(it);
      continue;
    }
    if (it->second.gpus > 0 && !it->second.queued)
      if (auto held = d.gpus_now->find(it->second.gpus)) d.gpus_now->take(*held);
    if (it->second.gpus > 0 && it->second.queued) ++d.queued_jobs, d.queued_gpus += it->second.gpus;
    ++it;
  }
  d.world_log = {{"free_gpus", d.gpus_now->free_gpus()}};
  d.recent_load = count_offered(d, engine.offered);
}

// The policy's GPU count now; a blocked job is rejected, or queued (on_block:
// queue) at the count the policy picks on the idle cluster.
std::optional<SubmitResult> choose_gpu_count(GpuClusterDecision& d, EngineState& engine) {
  d.gpus = gpus_meeting(d, *d.gpus_now);
  if (d.gpus == gpu::kTurnAway) {
    d.blocked_reason = gpu_turned_away_reason(d);
    return reject_blocked(d, engine);
  }
  if (d.gpus == 0) {
    d.blocked_reason = gpu_blocked_reason(d);
    if (d.cfg.on_block == OnBlock::kQueue) d.gpus = std::max(0, gpus_meeting(d, *d.gpus_idle));
    if (d.gpus == 0) {
      if (d.cfg.on_block == OnBlock::kQueue)
        d.blocked_reason += "; it cannot be met on an idle cluster either";
      return reject_blocked(d, engine);
    }
    d.outcome = Outcome::kQueued;
  }
  d.plan = d.durations->estimator().plan(*d.gpu_job, d.gpus, Strategy::kAuto);
  d.jct_s = d.times.seconds(d.steps, d.gpus);
  return std::nullopt;
}

// The plan the job's PACML_* variables and annotation carry.
GpuPlan plan_of(const GpuClusterDecision& d, const SubmitResult& r) {
  GpuPlan plan;
  plan.gpus = d.gpus;
  plan.nodes = r.shape.nodes;
  plan.gpus_per_node = r.shape.gpus_per_node;
  plan.strategy = strategy_name(d.plan.strategy);
  plan.tp = d.plan.tp, plan.pp = d.plan.pp, plan.dp = d.plan.dp;
  plan.jct_s = d.jct_s;
  if (d.requirement == "deadline")
    plan.deadline = static_cast<long>(std::ceil(d.in.now + *d.deadline_s));
  plan.policy = d.cfg.policy;
  plan.decision = r.decision_id;
  return plan;
}

// An accepted (or queued) job's log record: the count, its plan and what
// `pacml history join` lines up with accounting to fit a correction
// (doc/PHYSICAL.md §11): the job's timing inputs and its predicted step.
nlohmann::json counted_record(const GpuClusterDecision& d, const SubmitResult& r,
                              const GpuPlan& plan) {
  nlohmann::json rec = log_record(d, r.decision_id, d.outcome);
  rec["degree"] = d.gpus;  // the replay readers' name for the parallelism
  rec["gpus"] = d.gpus;
  rec["node_count"] = r.num_nodes;
  rec["gpus_per_node"] = r.shape.gpus_per_node;
  rec["whole_nodes"] = r.shape.whole_nodes;
  rec["strategy"] = plan.strategy;
  rec["tp"] = plan.tp, rec["pp"] = plan.pp, rec["dp"] = plan.dp;
  rec["jct"] = d.jct_s;
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(fnv1a64(d.gpu_job->key())));
  rec["job_digest"] = digest;
  rec["batch"] = d.gpu_job->global_batch();
  rec["precision"] = precision_name(d.gpu_job->precision());
  rec["device"] = d.durations->cluster().device.name;
  rec["step_time"] = d.plan.step_time;
  rec["compute_share"] = compute_share(d.plan);
  d.times.log_fields(rec, d.gpus);  // step_time above stays the model's (doc/PHYSICAL.md §11)
  log_time_limit(d, r, rec);
  return rec;
}

// Accepted (or queued): counts for Slurm, the plan for the job, the log line.
SubmitResult accept_gpus(GpuClusterDecision& d, EngineState& engine) {
  SubmitResult r = accepted_result(d, engine);
  r.shape = request_shape(d.gpus, d.gpus_per_node);
  r.gres_gpus = d.gres_gpus;
  r.num_nodes = r.shape.nodes;
  const GpuPlan plan = plan_of(d, r);
  set_slurm_deadline(d, r);
  if (d.in.requested_gpus > 0 && d.in.requested_gpus != d.gpus) {  // said, not silently replaced
    const std::string notice =
        messages::gpus_replaced_notice(d.in.requested_gpus, d.gpus, d.cfg.policy);
    r.user_notice += (r.user_notice.empty() ? "" : "; ") + notice;
  }
  r.annotation = format_plan(plan);
  r.job_env = plan_environment(plan);
  const bool queued = d.outcome == Outcome::kQueued;
  if (d.cfg.reservation_ttl > 0)
    engine.reservations[r.decision_id] =
        Reservation{{}, d.in.now + d.cfg.reservation_ttl, queued, d.gpus, d.in.uid};

  nlohmann::json rec = counted_record(d, r, plan);
  const double latency = d.elapsed_ms();
  rec["latency_ms"] = latency;
  engine.log.add(r.decision_id, std::move(rec), d.cfg.resolve_job_ids, d.in.now, 60);
  r.log_message =
      accepted_log_message(d, r.decision_id, latency,
                           (queued ? "queued at " : "") + messages::gpu_request(r.shape) + ", " +
                               plan.strategy + " (tp " + std::to_string(plan.tp) + ", pp " +
                               std::to_string(plan.pp) + ", dp " + std::to_string(plan.dp) + ")");
  return r;
}

}  // namespace

SubmitResult decide_gpus(Decision&& shared, EngineState& engine) {
  GpuClusterDecision d(std::move(shared));
  if (auto done = load_gpu_job(d, engine)) return *done;
  if (auto done = set_requirement(d)) return *done;
  read_gpu_cluster(d, engine);
  if (auto done = choose_gpu_count(d, engine)) return *done;
  if (auto done = set_time_limit(d)) return *done;
  return accept_gpus(d, engine);
}

}  // namespace pacml::plugin
