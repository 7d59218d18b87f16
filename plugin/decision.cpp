#include "plugin/decision.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/correction/step_correction.h"
#include "core/slurm/slurm_syntax.h"

namespace pacml::plugin {

namespace {

// The longest time limit pacml sets from a prediction: longer ones come from
// crafted or mistyped step counts, and Slurm would print them as UNLIMITED
// or thousands of days.
constexpr double kMaxLimitDays = 365;

bool listed(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

double positive_beta(double beta) {
  return beta > 0 ? beta : 1e-12;
}

// Whether a comment already holds pacml: words (its own, or unreadable
// ones): a second request there would make the job's history ambiguous.
bool has_pacml_words(const std::string& comment) {
  try {
    slurm::RequestFields ignored;
    return slurm::parse_comment(comment, ignored, "--comment");
  } catch (const InputError&) {
    return true;
  }
}

// The user's own request (not pacml's defaults) in the comment grammar.
std::string request_comment(const Decision& d) {
  slurm::RequestFields f;
  if (!d.req.graph.empty()) f.graph = d.graph_path.empty() ? d.req.graph : d.graph_path;
  if (!d.req.model.empty()) f.model = d.req.model;
  f.beta = d.req.beta;
  f.deadline = d.req.deadline;
  f.steps = d.req.steps;
  return slurm::format_comment(f);
}

}  // namespace

SubmitResult rejection(RejectKind kind, const std::string& message) {
  SubmitResult r;
  r.outcome = Outcome::kRejected;
  r.reject = kind;
  r.user_message = message;
  r.log_message = message;
  return r;
}

SubmitResult pass_through(const std::string& why, bool error) {
  SubmitResult r;
  r.log_message = why;
  r.log_is_error = error;
  return r;
}

// Renames core's option names to the user-facing ones.
std::string user_facing(const InputError& e, const std::string& option) {
  std::string text = e.what();
  for (const char* core : {"--model: ", "--batch: "})
    if (text.rfind(core, 0) == 0) text = option + ": " + text.substr(std::strlen(core));
  return text;
}

// The partition the job runs in: the one it names, the managed one of a list
// it names, or (none named) the default partition if pacml manages it, else
// pacml's first.
std::optional<SubmitResult> choose_partition(Decision& d) {
  const std::vector<std::string>& managed = d.cfg.partitions;
  std::string part = d.in.partition;
  const std::string dflt = d.view.default_partition();
  if (part.find(',') != std::string::npos) {
    std::string chosen;
    for (const std::string& p : slurm::expand_hostlist(part, "--partition"))
      if (listed(managed, p)) chosen = p;
    if (!chosen.empty()) part = d.partition_rewrite = chosen;
  }
  if (part.empty()) {
    part = managed.empty() || listed(managed, dflt) ? dflt : managed.front();
    d.partition_rewrite = part;
  }
  const bool ok =
      managed.empty() ? (part.empty() || dflt.empty() || part == dflt) : listed(managed, part);
  if (!ok) {
    std::string list;
    for (const std::string& p : managed) list += (list.empty() ? "" : ", ") + p;
    if (list.empty()) list = "the default partition " + dflt;
    return rejection(RejectKind::kUnmanagedPartition,
                     messages::unmanaged_partition(part.empty() ? d.in.partition : part, list));
  }
  d.partition = part;
  return std::nullopt;
}

// The RAMP mapping: server index → node name (pacml.conf's, else the
// partition's nodes in Slurm's order).
std::optional<SubmitResult> map_servers(Decision& d) {
  d.names = d.cfg.nodes;
  if (d.names.empty() && !d.view.partition_nodes(d.partition, d.names)) {
    SubmitResult r = pass_through("pacml: the nodes of partition " + d.partition +
                                      " are not known yet; " + d.who + " passed through unchanged",
                                  true);
    r.user_notice = messages::passed_through_notice("the nodes of partition " + d.partition +
                                                    " are not known to pacml yet");
    return r;
  }
  if (d.view.nodes_registering()) {  // not "nothing is free": wait for the nodes
    SubmitResult r = pass_through(
        "pacml: slurmctld has just started and its nodes are still "
        "registering; " +
            d.who + " passed through unchanged",
        true);
    r.user_notice = messages::passed_through_notice(
        "slurmctld has just started and its nodes are still registering");
    return r;
  }
  // A cluster file's cluster is the partition's nodes; topology's has its size.
  if (d.cfg.cluster.empty()) d.names.resize(d.cfg.num_servers());
  return std::nullopt;
}

// β from the job's deadline, β or --time, and the bound the predicted JCT
// must meet: the admin's safety margin asks JCT × (1 + margin) ≤ requirement.
std::optional<SubmitResult> set_requirement(Decision& d) {
  const JobRequest& req = d.req;
  if (req.beta && req.deadline)
    return rejection(RejectKind::kBadRequest, messages::both_beta_and_deadline());
  if (req.beta) {
    d.req_beta = *req.beta;
    d.requirement = "beta";
  } else if (req.deadline) {
    try {
      d.deadline_s = slurm::parse_deadline_seconds(*req.deadline, d.in.now, "--pacml-deadline");
    } catch (const InputError& e) {
      return rejection(RejectKind::kBadTime, std::string("pacml: ") + e.what());
    }
    d.requirement = "deadline";
  } else if (d.in.time_limit_minutes > 0) {
    d.deadline_s = 60.0 * d.in.time_limit_minutes;
    d.requirement = "time_limit";
  } else {
    SubmitResult r = pass_through(messages::no_requirement_log(d.who));
    r.user_notice = messages::no_requirement_notice();
    return r;
  }
  const double stretch = 1 + d.cfg.margin;
  if (d.deadline_s) {
    d.req_beta = d.seq_s > 0 ? positive_beta(std::min(1.0, *d.deadline_s / d.seq_s)) : 1.0;
    d.bound_s = *d.deadline_s / stretch;
    d.beta = d.seq_s > 0 ? positive_beta(std::min(1.0, *d.bound_s / d.seq_s)) : 1.0;
  } else {
    d.beta = d.req_beta / stretch;
  }
  return std::nullopt;
}

// The time limit never ends a job early (plugin/README.md, "Time limits"):
// only a job that states its length gets one from the prediction; it is
// never below the job's own --time, and is capped by the partition's
// MaxTime. A job that gives no length keeps its own limit.
std::optional<SubmitResult> set_time_limit(Decision& d) {
  if (!d.req.steps || d.in.time_unlimited) return std::nullopt;
  const double jct_s = d.jct_s;
  const double predicted_s = jct_s * d.cfg.time_limit_factor + d.cfg.time_limit_extra;
  if (!(predicted_s <= kMaxLimitDays * 86400))
    return rejection(RejectKind::kBadRequest,
                     messages::limit_too_long(d.steps, predicted_s, kMaxLimitDays));
  if (!d.view.partition_limits_known(d.partition)) {
    d.notice = messages::limit_unchecked_notice(d.partition);
    return std::nullopt;  // MaxTime could not cap or refuse it: not 365 days unchecked
  }
  std::uint32_t limit =
      corrected_time_limit_minutes(jct_s, d.cfg.time_limit_factor, d.cfg.time_limit_extra, 0);
  d.time_limit_source = "prediction";
  if (const auto max = d.view.partition_max_minutes(d.partition); max && limit > *max) {
    if (jct_s > 60.0 * *max)
      return rejection(RejectKind::kBadTime,
                       messages::jct_beyond_max_time(jct_s, d.partition, *max));
    limit = *max;
    d.time_limit_source = "partition_max_time";
    d.notice = messages::limit_capped_notice(limit, d.partition);
  }
  if (d.in.time_limit_minutes > limit) {
    limit = d.in.time_limit_minutes;
    d.time_limit_source = "job";
  }
  d.time_limit = limit;
  return std::nullopt;
}

// The job's graph: a zoo model, a site graph (graph_dirs) or the user's graph
// as the SPANK plugin sent it (GraphSource: user_graph_files, the limits).
std::optional<SubmitResult> read_graph(Decision& d, EngineState& engine) {
  const JobRequest& req = d.req;
  try {
    if (!req.model.empty()) {
      d.graph = engine.graphs.zoo_model(req.model);
    } else if (!req.graph.empty()) {
      GraphSourceOptions options{
          d.cfg.graph_dirs,
          d.cfg.user_graph_files,
          {d.cfg.max_graph_bytes, d.cfg.max_graph_ops, d.cfg.max_graph_edges}};
      d.graph = engine.graphs.job_graph({req.graph, req.graph_compact, req.graph_error}, options,
                                        &d.graph_path);
    } else {
      return rejection(RejectKind::kBadRequest, messages::missing_graph());
    }
  } catch (const InputError& e) {
    return rejection(
        RejectKind::kBadRequest,
        "pacml: " + user_facing(e, req.model.empty() ? "--pacml-graph" : "--pacml-model"));
  }
  return std::nullopt;
}

// The decision log fields every outcome shares.
nlohmann::json log_record(const Decision& d, const std::string& id, Outcome outcome) {
  slurm::RequestFields request;
  (d.graph_path.empty() ? request.model : request.graph) =
      d.graph_path.empty() ? d.model_name() : d.graph_path;
  request.beta = d.req_beta;
  request.steps = d.steps;
  nlohmann::json rec = {{"job_id", nullptr},
                        {"decision", id},
                        {"submit_time", static_cast<long>(d.in.now)},
                        {"user_id", d.in.uid},
                        {"name", d.in.job_name},
                        {"partition", d.partition},
                        {"outcome", outcome_name(outcome)},
                        {"model", d.model_name()},
                        {"steps", d.steps},
                        {"steps_given", d.req.steps.has_value()},
                        {"beta", d.req_beta},
                        {"margin", d.cfg.margin},
                        {"requirement", d.requirement},
                        {"policy", d.cfg.policy},
                        {"jct_seq", d.seq_s},
                        {"comment", slurm::format_comment(request)}};
  if (d.deadline_s) rec["deadline_s"] = *d.deadline_s;
  if (!d.graph_path.empty()) rec["graph"] = d.graph_path;
  rec.update(d.world_log);
  return rec;
}

// A job no choice serves: refused with d.blocked_reason, and logged.
SubmitResult reject_blocked(Decision& d, EngineState& engine) {
  SubmitResult r = rejection(RejectKind::kBlocked, messages::blocked(d.blocked_reason));
  r.decision_id = engine.next_decision_id();
  nlohmann::json rec = log_record(d, r.decision_id, Outcome::kRejected);
  rec["reason"] = d.blocked_reason;
  rec["latency_ms"] = d.elapsed_ms();
  engine.log.add(r.decision_id, std::move(rec), false, d.in.now, 0);
  return r;
}

// --pacml-deadline as the job's Slurm deadline, so that Slurm itself drops
// a queued job that can no longer finish in time (plugin/README.md, "The
// deadline rule"). Slurm ends a pending job at once when its time limit
// cannot end before the deadline ("start > deadline - time limit"), so a
// --time longer than the deadline (or Slurm's default limit, maybe
// UNLIMITED) would kill the job unseen: such a job also gets a time_min, so
// Slurm lowers its limit to end by the deadline instead, never below pacml's
// limit for the prediction (JCT × factor + extra, within the deadline, at
// least the JCT). That floor comes only from a length the user stated
// (--pacml-steps): one from pacml's default step count let backfill start a
// --time=600 job with a 2-minute limit. A job without one whose limit runs
// past the deadline gets no Slurm deadline (and is told). Slurm counts whole
// minutes: a deadline closer than the JCT rounded up to a minute is left to
// pacml's own check.
void set_slurm_deadline(const Decision& d, SubmitResult& r) {
  if (d.requirement != "deadline") return;
  const double jct_s = d.jct_s;
  const double left_min = std::floor(*d.deadline_s / 60);
  const double jct_min = std::max(1.0, std::ceil(jct_s / 60));
  if (jct_min > left_min) return;
  const std::uint32_t in_force = d.time_limit ? d.time_limit : d.in.time_limit_minutes;
  const bool fits = in_force > 0 && !d.in.time_unlimited && in_force <= left_min;
  if (!fits && !d.req.steps) {  // a floor only from a length the user stated
    r.user_notice +=
        (r.user_notice.empty() ? "" : "; ") + messages::deadline_not_given_notice(in_force);
    return;
  }
  r.slurm_deadline = static_cast<long>(std::ceil(d.in.now + *d.deadline_s));
  if (fits) return;
  const double wanted = std::ceil((jct_s * d.cfg.time_limit_factor + d.cfg.time_limit_extra) / 60);
  r.time_min_minutes = static_cast<std::uint32_t>(std::max(jct_min, std::min(wanted, left_min)));
  const std::string notice = messages::deadline_shortens_notice(in_force, r.time_min_minutes);
  r.user_notice += (r.user_notice.empty() ? "" : "; ") + notice;
}

SubmitResult accepted_result(const Decision& d, EngineState& engine) {
  SubmitResult r;
  r.outcome = d.outcome;
  r.partition = d.partition_rewrite;
  r.time_limit_minutes = d.time_limit;
  r.user_notice = d.notice;
  r.decision_id = engine.next_decision_id();
  r.annotate_admin_comment = d.cfg.annotate == "admin_comment";
  if (d.req.origin == "spank" && !has_pacml_words(d.in.comment))
    r.request_comment = request_comment(d);
  return r;
}

void log_time_limit(const Decision& d, const SubmitResult& r, nlohmann::json& rec) {
  if (r.slurm_deadline) rec["slurm_deadline"] = r.slurm_deadline;
  // squeue's time_limit: the limit in force (pacml's, else the job's own)
  const std::uint32_t in_force = d.time_limit ? d.time_limit : d.in.time_limit_minutes;
  rec["time_limit"] = in_force ? nlohmann::json(in_force) : nlohmann::json(nullptr);
  rec["time_limit_source"] = in_force ? d.time_limit_source : std::string("none");
}

std::string time_limit_text(const Decision& d) {
  return d.time_limit
             ? "time limit " + messages::minutes(d.time_limit) + " from " + d.time_limit_source
             : "time limit the job's own";
}

std::string accepted_log_message(const Decision& d, const std::string& decision_id,
                                 double latency_ms, const std::string& placement) {
  std::string line = "pacml: " + d.who + ": model " + d.model_name() + ", " +
                     std::to_string(d.steps) + " steps, must " + messages::need(d.need()) + " -> " +
                     placement + ", predicted JCT " + messages::seconds(d.jct_s) + ", " +
                     time_limit_text(d) + ", policy " + d.cfg.policy + ", " +
                     messages::number(latency_ms, 3) + " ms [decision " + decision_id + "]";
  if (d.outcome == Outcome::kQueued) line += "; was blocked: " + d.blocked_reason;
  return line;
}

}  // namespace pacml::plugin
