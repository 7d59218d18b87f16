#include "plugin/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <sstream>

#include "core/jct/estimator.h"
#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/policy/policy.h"
#include "core/profile.h"
#include "core/util/error.h"
#include "plugin/hostlist.h"
#include "plugin/policy_factory.h"
#include "plugin/request.h"
#include "plugin/slurm_time.h"

namespace pacml::plugin {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassThrough:
      return "pass_through";
    case Outcome::kPlaced:
      return "placed";
    case Outcome::kQueued:
      return "queued";
    case Outcome::kRejected:
      return "rejected";
  }
  return "?";
}

struct Engine::Active {
  PluginConfig cfg;
  RampTopology topology;
  Profile profile;
  PolicyPtr policy;
  LookaheadCache cache;
  Rng rng;
  explicit Active(PluginConfig c)
      : cfg(std::move(c)),
        topology(cfg.ramp, cfg.source),
        profile(Profile::by_name(cfg.profile, cfg.source)),
        policy(make_plugin_policy(cfg.policy, cfg.source)),
        rng(static_cast<std::uint64_t>(cfg.seed)) {}
};

namespace {

std::string fmt(double v, int digits = 4) {
  std::ostringstream out;
  out.precision(digits);
  out << v;
  return out.str();
}

std::string seconds_text(double s) {
  if (s < 120) return fmt(s) + " s";
  if (s < 7200) return fmt(s / 60) + " min";
  return fmt(s / 3600) + " h";
}

SubmitResult rejection(RejectKind kind, const std::string& message) {
  SubmitResult r;
  r.outcome = Outcome::kRejected;
  r.reject = kind;
  r.user_message = message;
  r.log_message = message;
  return r;
}

SubmitResult pass_through(const std::string& why, bool error = false) {
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

}  // namespace

Engine::Engine(std::string config_path, LogFn log)
    : config_path_(std::move(config_path)), log_(std::move(log)), start_time_(std::time(nullptr)) {}

Engine::~Engine() = default;

void Engine::log_once(LogLevel level, const std::string& message) {
  if (message == last_logged_) return;
  last_logged_ = message;
  if (log_) log_(level, message);
}

bool Engine::has_config() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ != nullptr;
}

PluginConfig Engine::config() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ ? active_->cfg : PluginConfig();
}

void Engine::set_sched_params(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (text == sched_text_) return;
  sched_text_ = text;
  try {
    SchedParams next = parse_sched_params(text);
    if (next.text() != sched_.text() && log_)
      log_(LogLevel::kInfo, "pacml: SchedulerParameters settings: " +
                                (next.empty() ? std::string("none") : next.text()) +
                                " (they take precedence over pacml.conf)");
    sched_ = std::move(next);
  } catch (const std::exception& e) {
    const std::string kept = sched_.empty() ? "none" : sched_.text();
    if (log_)
      log_(LogLevel::kError, std::string("pacml: ") + e.what() +
                                 "; keeping the last good SchedulerParameters settings (" + kept +
                                 ")");
  }
}

std::string Engine::config_path() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sched_.conf.value_or(config_path_);
}

bool Engine::refresh_config() {
  std::lock_guard<std::mutex> lock(mutex_);
  const char* keep = active_ ? "; keeping the last good configuration"
                             : "; jobs pass through unchanged until it is fixed";
  const std::string path = sched_.conf.value_or(config_path_);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    file_stamp_ = "missing";
    log_once(LogLevel::kError, "pacml: cannot read " + path + ": " + std::strerror(errno) +
                                   (sched_.conf ? " (pacml_conf in SchedulerParameters)" : "") +
                                   keep);
    return active_ != nullptr;
  }
  // The file's identity and the SchedulerParameters settings applied over it.
  std::ostringstream stamp;
  stamp << path << '|' << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec << ':' << st.st_size << ':'
        << st.st_ino << '|' << sched_.text();
  if (stamp.str() == file_stamp_) return active_ != nullptr;
  file_stamp_ = stamp.str();
  try {
    PluginConfig loaded = load_plugin_config(path);
    apply_sched_params(loaded, sched_);
    auto next = std::make_unique<Active>(std::move(loaded));
    const PluginConfig& c = next->cfg;
    try {
      log_file_.open(c.decision_log);
    } catch (const InputError& e) {
      if (log_) log_(LogLevel::kError, std::string("pacml: ") + e.what() + "; no decision log");
    }
    std::string parts;
    for (const std::string& p : c.partitions) parts += (parts.empty() ? "" : ",") + p;
    active_ = std::move(next);
    last_logged_.clear();
    if (log_)
      log_(LogLevel::kInfo,
           "pacml: loaded " + path +
               (sched_.empty() ? std::string() : " with SchedulerParameters " + sched_.text()) +
               ": policy " + c.policy + ", profile " + c.profile + ", RAMP " +
               active_->topology.shape() + ", nodes " +
               (c.nodes.empty() ? std::string("from the partition")
                                : c.nodes.front() + ".." + c.nodes.back()) +
               ", partitions " + (parts.empty() ? "(default)" : parts) + ", on_block " +
               (c.on_block == OnBlock::kReject ? "reject" : "queue") + ", margin " + fmt(c.margin) +
               (c.decision_log.empty() ? "" : ", decision log " + c.decision_log));
  } catch (const std::exception& e) {
    log_once(LogLevel::kError, std::string("pacml: ") + e.what() + keep);
  }
  return active_ != nullptr;
}

void Engine::release(const std::string& decision_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  reservations_.erase(decision_id);
}

std::vector<std::string> Engine::held_decisions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [id, r] : reservations_) out.push_back(id);
  return out;
}

SubmitResult Engine::submit(const SubmitInput& input, const SlurmView& view) {
  const auto t0 = std::chrono::steady_clock::now();
  refresh_config();
  std::lock_guard<std::mutex> lock(mutex_);
  SubmitResult result;
  if (!active_) {
    bool wants = false;
    try {
      wants = extract_request(input.spank_env, input.comment).wants_pacml;
    } catch (const InputError&) {
      wants = true;
    }
    if (wants)
      result = pass_through("pacml: no valid " + sched_.conf.value_or(config_path_) +
                                "; job passed through unchanged",
                            true);
  } else {
    try {
      result = decide(input, view, *active_);
    } catch (const std::exception& e) {
      result = pass_through(
          std::string("pacml: internal error, job passed through unchanged: ") + e.what(), true);
    }
  }
  result.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

SubmitResult Engine::decide(const SubmitInput& in, const SlurmView& view, Active& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const PluginConfig& cfg = a.cfg;
  JobRequest req;
  try {
    req = extract_request(in.spank_env, in.comment);
  } catch (const InputError& e) {
    return rejection(RejectKind::kBadRequest, std::string("pacml: ") + e.what());
  }
  if (!req.wants_pacml) return SubmitResult();
  const std::string who = "job '" + in.job_name + "' of uid " + std::to_string(in.uid);

  // Partition.
  std::string part = in.partition;
  const std::string dflt = view.default_partition();
  SubmitResult placed;
  if (part.find(',') != std::string::npos) {
    std::string managed;
    for (const std::string& p : expand_hostlist(part, "--partition"))
      if (std::find(cfg.partitions.begin(), cfg.partitions.end(), p) != cfg.partitions.end())
        managed = p;
    if (!managed.empty()) part = managed, placed.partition = managed;
  }
  const auto is_listed = [&](const std::string& p) {
    return std::find(cfg.partitions.begin(), cfg.partitions.end(), p) != cfg.partitions.end();
  };
  if (part.empty() && in.partition.empty()) {
    // No partition named: the default one if pacml manages it, else pacml's first.
    part = cfg.partitions.empty() || is_listed(dflt) ? dflt : cfg.partitions.front();
    placed.partition = part;
  }
  const bool managed =
      cfg.partitions.empty() ? (part.empty() || dflt.empty() || part == dflt) : is_listed(part);
  if (!managed) {
    std::string list;
    for (const std::string& p : cfg.partitions) list += (list.empty() ? "" : ", ") + p;
    if (list.empty()) list = "the default partition " + dflt;
    return rejection(RejectKind::kUnmanagedPartition,
                     "pacml: partition '" + (part.empty() ? in.partition : part) +
                         "' is not managed by pacml (pacml manages " + list + ")");
  }

  // The RAMP mapping: server index → node name.
  std::vector<std::string> names = cfg.nodes;
  if (names.empty()) {
    std::vector<std::string> nodes;
    if (!view.partition_nodes(part, nodes))
      return pass_through("pacml: the nodes of partition " + part + " are not known yet; " + who +
                              " passed through unchanged",
                          true);
    names = nodes;
    if (static_cast<int>(names.size()) > cfg.num_servers()) names.resize(cfg.num_servers());
  }
  names.resize(cfg.num_servers());

  // The graph.
  JobGraphPtr graph;
  std::string graph_path;
  try {
    if (!req.model.empty()) {
      graph = graphs_.zoo_model(req.model);
    } else if (!req.graph.empty()) {
      GraphSourceOptions options;
      options.graph_dirs = cfg.graph_dirs;
      options.user_graph_files = cfg.user_graph_files;
      options.max_bytes = cfg.max_graph_bytes;
      graph = graphs_.graph_file(req.graph, UserIdentity{in.uid, in.gid, in.work_dir}, options,
                                 &graph_path);
    } else {
      return rejection(RejectKind::kBadRequest,
                       "pacml: name the job's model with --pacml-model=NAME (a built-in model, "
                       "see `pacml graph zoo`) or --pacml-graph=FILE");
    }
  } catch (const InputError& e) {
    return rejection(
        RejectKind::kBadRequest,
        "pacml: " + user_facing(e, req.model.empty() ? "--pacml-graph" : "--pacml-model"));
  }

  const long steps = req.steps.value_or(cfg.default_steps);
  const JctEstimator estimator(a.topology, a.profile, static_cast<int>(steps));
  const double unit = a.profile.time_unit == "ms" ? 1e-3 : 1.0;
  const double seq_s = estimator.sequential_jct(*graph) * unit;

  // The requirement.
  double beta = 1;
  std::optional<double> deadline_s;
  std::string requirement;
  if (req.beta && req.deadline)
    return rejection(RejectKind::kBadRequest,
                     "pacml: give --pacml-deadline or --pacml-beta, not both");
  if (req.beta) {
    beta = *req.beta;
    requirement = "beta";
  } else {
    if (req.deadline) {
      try {
        deadline_s = parse_deadline_seconds(*req.deadline, in.now, "--pacml-deadline");
      } catch (const InputError& e) {
        return rejection(RejectKind::kBadTime, std::string("pacml: ") + e.what());
      }
      requirement = "deadline";
    } else if (in.time_limit_minutes > 0) {
      deadline_s = 60.0 * in.time_limit_minutes;
      requirement = "time_limit";
    } else {
      return pass_through("pacml: " + who +
                          " gives no requirement (--pacml-deadline, --pacml-beta or --time); "
                          "passed through unchanged");
    }
    beta = seq_s > 0 ? std::min(1.0, *deadline_s / seq_s) : 1.0;
    if (!(beta > 0)) beta = 1e-12;
  }
  // The admin's safety margin: a degree meets the requirement only if its
  // predicted JCT × (1 + margin) does, so the policy and the estimator judge
  // against the requirement divided by (1 + margin).
  const double req_beta = beta, stretch = 1 + cfg.margin;
  std::optional<double> jct_bound_s;  // the deadline the predicted JCT must meet
  if (deadline_s) {
    jct_bound_s = *deadline_s / stretch;
    beta = seq_s > 0 ? std::min(1.0, *jct_bound_s / seq_s) : 1.0;
    if (!(beta > 0)) beta = 1e-12;
  } else {
    beta = req_beta / stretch;
  }

  // The cluster now, and the cluster with only unusable nodes excluded.
  std::set<int> reserved, queued_for;
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    if (it->second.until <= in.now) {
      it = reservations_.erase(it);
      continue;
    }
    for (int s : it->second.servers) (it->second.queued ? queued_for : reserved).insert(s);
    ++it;
  }
  ClusterState now_state(a.topology), idle_state(a.topology);
  constexpr JobId kHeld = 1;
  int free_servers = 0;
  for (int s = 0; s < a.topology.num_servers(); ++s) {
    const NodeStatus status = names[s].empty() ? NodeStatus::kUnknown : view.node_status(names[s]);
    if (status == NodeStatus::kBusy && reserved.erase(s)) {
      // its job (or another) runs there now: the reservation has done its work
      for (auto& [id, r] : reservations_)
        if (!r.queued)
          r.servers.erase(std::remove(r.servers.begin(), r.servers.end(), s), r.servers.end());
    }
    if (status != NodeStatus::kFree || reserved.count(s))
      now_state.occupy(kHeld, {s});
    else
      ++free_servers;
    if (status == NodeStatus::kUnavailable || status == NodeStatus::kUnknown)
      idle_state.occupy(kHeld, {s});
  }

  auto evaluate = [&](const ClusterState& cluster, Estimate& out) {
    const std::vector<bool> mask = action_mask(cluster, kMaxAction);
    DecisionContext ctx{*graph, beta, cluster, mask, estimator, &a.cache, a.rng};
    const int action = a.policy->choose(ctx);
    if (action > 0) out = estimator.estimate(*graph, action, beta, cluster, &a.cache);
    return action;
  };
  auto meets = [&](const Estimate& e) {
    if (!e.placed) return false;
    if (jct_bound_s) return e.jct * unit <= *jct_bound_s;
    return e.accepted();
  };
  const std::string need =
      (deadline_s
           ? "finish within " + seconds_text(*deadline_s) + " (β " + fmt(req_beta, 3) +
                 " of its sequential " + seconds_text(seq_s) + ")"
           : "reach β " + fmt(req_beta, 3) + " (JCT ≤ " + seconds_text(req_beta * seq_s) + ")") +
      (cfg.margin > 0 ? " with margin " + fmt(cfg.margin, 3) + " (predicted JCT ≤ " +
                            seconds_text(jct_bound_s ? *jct_bound_s : beta * seq_s) + ")"
                      : std::string());

  // The decision log line: the fields every outcome shares.
  const auto record = [&](const std::string& decision_id, Outcome outcome, int chosen_action) {
    nlohmann::json rec = {
        {"job_id", nullptr},
        {"decision", decision_id},
        {"submit_time", static_cast<long>(in.now)},
        {"user_id", in.uid},
        {"name", in.job_name},
        {"partition", part},
        {"outcome", outcome_name(outcome)},
        {"model", graph->name()},
        {"steps", steps},
        {"beta", req_beta},
        {"margin", cfg.margin},
        {"requirement", requirement},
        {"policy", cfg.policy},
        {"action", chosen_action},
        {"free_servers", free_servers},
        {"jct_seq", seq_s},
        {"comment",
         "pacml:" + (graph_path.empty() ? "model=" + graph->name() : "graph=" + graph_path) +
             ",beta=" + fmt(req_beta, 6) + ",steps=" + std::to_string(steps)}};
    if (deadline_s) rec["deadline_s"] = *deadline_s;
    if (!graph_path.empty()) rec["graph"] = graph_path;
    return rec;
  };
  const auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };

  Estimate est;
  int action = evaluate(now_state, est);
  Outcome outcome = Outcome::kPlaced;
  std::string reason;
  if (!(action > 0 && meets(est))) {
    // Why not: the fastest degree that can be placed now.
    double best = -1;
    int best_action = 0, best_servers = 0;
    for (int v : valid_actions(action_mask(now_state, kMaxAction))) {
      if (v == 0) continue;
      const Estimate e = estimator.estimate(*graph, v, beta, now_state, &a.cache);
      if (e.placed && (best < 0 || e.jct < best))
        best = e.jct, best_action = v, best_servers = e.servers_used();
    }
    reason = "model " + graph->name() + ", " + std::to_string(steps) + " steps, must " + need +
             "; policy " + cfg.policy + " " +
             (action > 0 ? "chose degree " + std::to_string(action) +
                               (est.placed ? " (" + seconds_text(est.jct * unit) + ")"
                                           : " (no free RAMP block)")
                         : std::string("found no degree that meets it")) +
             " with " + std::to_string(free_servers) + " of " +
             std::to_string(a.topology.num_servers()) + " servers free";
    if (best >= 0)
      reason += "; the fastest placement now is degree " + std::to_string(best_action) + " on " +
                std::to_string(best_servers) + " servers, " + seconds_text(best * unit);
    if (cfg.on_block == OnBlock::kQueue) {
      // Prefer servers no other queued job waits for, so that queued jobs
      // spread over the cluster instead of all waiting for the first block.
      ClusterState spread = idle_state;
      for (int s : queued_for)
        if (spread.is_free(s)) spread.occupy(kHeld, {s});
      Estimate queued;
      int qa = evaluate(spread, queued);
      if (!(qa > 0 && meets(queued))) qa = evaluate(idle_state, queued);
      if (qa > 0 && meets(queued)) {
        outcome = Outcome::kQueued;
        est = queued;
        action = qa;
      } else {
        reason += "; it cannot be met on an idle cluster either";
      }
    }
    if (outcome != Outcome::kQueued) {
      SubmitResult r = rejection(RejectKind::kBlocked,
                                 "pacml: the job cannot meet its requirement: " + reason +
                                     ". Relax --pacml-deadline / --pacml-beta / --time, or "
                                     "submit later.");
      r.decision_id = std::to_string(start_time_) + "." + std::to_string(++counter_);
      nlohmann::json rec = record(r.decision_id, Outcome::kRejected, action);
      rec["reason"] = reason;
      rec["latency_ms"] = elapsed_ms();
      log_file_.add(r.decision_id, std::move(rec), false, in.now, 0);
      return r;
    }
  }

  // Accepted (or queued): rewrite the job.
  SubmitResult r = placed;
  r.outcome = outcome;
  for (int s : est.placement.servers) r.nodes.push_back(names[s]);
  r.num_nodes = static_cast<int>(r.nodes.size());
  const double jct_s = est.jct * unit;
  const double limit_s = jct_s * cfg.time_limit_factor + cfg.time_limit_extra;
  // Slurm's largest finite limit is INFINITE - 1 minutes; an enormous
  // predicted JCT (possible with β = 1) must not wrap around in the cast.
  constexpr double kMaxLimitMinutes = 0xfffffffe;
  r.time_limit_minutes = static_cast<std::uint32_t>(
      std::min(kMaxLimitMinutes, std::max(1.0, std::ceil(limit_s / 60.0))));
  r.decision_id = std::to_string(start_time_) + "." + std::to_string(++counter_);
  r.annotate_admin_comment = cfg.annotate == "admin_comment";
  r.annotation = "pacml-decision:degree=" + std::to_string(est.degree) +
                 ",action=" + std::to_string(action) + ",servers=" + std::to_string(r.num_nodes) +
                 ",jct=" + fmt(jct_s, 6) + "s,beta=" + fmt(req_beta, 4) + ",policy=" + cfg.policy +
                 (outcome == Outcome::kQueued ? ",queued" : "") + ",decision=" + r.decision_id;
  if (cfg.reservation_ttl > 0)
    reservations_[r.decision_id] = Reservation{est.placement.servers, in.now + cfg.reservation_ttl,
                                               outcome == Outcome::kQueued};

  nlohmann::json coords = nlohmann::json::array();
  for (int s : est.placement.servers) {
    const ServerCoord c = a.topology.coord(s);
    coords.push_back({c.c, c.r, c.s});
  }
  const double latency = elapsed_ms();
  nlohmann::json rec = record(r.decision_id, outcome, action);
  rec["degree"] = est.degree;
  rec["node_count"] = r.num_nodes;
  rec["nodes"] = join_hostlist(r.nodes);
  rec["servers"] = est.placement.servers;
  rec["coords"] = coords;
  rec["jct"] = jct_s;
  rec["time_limit"] = r.time_limit_minutes;
  rec["latency_ms"] = latency;
  log_file_.add(r.decision_id, std::move(rec), cfg.resolve_job_ids, in.now, 60);

  r.log_message = "pacml: " + who + ": model " + graph->name() + ", " + std::to_string(steps) +
                  " steps, must " + need + " -> " +
                  (outcome == Outcome::kQueued ? "queued at degree " : "degree ") +
                  std::to_string(est.degree) + " on " + join_hostlist(r.nodes) + " (" +
                  std::to_string(r.num_nodes) + " servers), predicted JCT " + seconds_text(jct_s) +
                  ", time limit " + std::to_string(r.time_limit_minutes) + " min, policy " +
                  cfg.policy + ", " + fmt(latency, 3) + " ms [decision " + r.decision_id + "]";
  if (outcome == Outcome::kQueued) r.log_message += "; was blocked: " + reason;
  return r;
}

}  // namespace pacml::plugin
