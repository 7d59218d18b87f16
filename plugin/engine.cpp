#include "plugin/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/correction/step_correction.h"
#include "core/jct/estimator.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/parallel_job.h"
#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/placement/gpu_placement.h"
#include "core/policy/gpu_policy.h"
#include "core/policy/policy.h"
#include "core/policy/policy_factory.h"
#include "core/profile.h"
#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/hash.h"
#include "core/util/lru_cache.h"
#include "core/zoo/model_zoo.h"
#include "plugin/decision_id.h"
#include "plugin/messages.h"
#include "plugin/request.h"

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
  PolicyPtr policy;  // the paper simulator's (profile reference)
  // Bounded: every distinct user graph adds entries (keys of up to ~34 KB).
  static constexpr std::size_t kLookaheadCacheBytes = 64u << 20;
  LookaheadCache cache;
  Rng rng;
  // The physical profile's (cfg.decides_gpus()): the cluster, the policy,
  // the zoo jobs and their durations by (nodes, GPUs per node) as Slurm
  // shows the partition, which may differ from the description's; measured
  // step times (cfg.throughput) override the analytic ones where they exist.
  std::optional<ClusterSpec> cluster;
  std::optional<GpuPolicy> gpu_policy;
  std::map<std::string, std::shared_ptr<const ParallelJob>> jobs;
  // Users' graph files as jobs, by the graph's serial fingerprint (one per
  // distinct text, GraphSource): bounded in bytes, since every user's file
  // adds one. A job holds its profile and the graph at each per-GPU batch it
  // was costed at (at most ~16 for the profiled batch of 64).
  static constexpr std::size_t kGraphJobCacheBytes = 64u << 20;
  static constexpr std::size_t kLayerBytes = 512;  // a layer, its label and edges
  static constexpr std::size_t kBatchesKept = 17;  // the profile and ~16 batches
  LruCache<std::shared_ptr<const ParallelJob>> graph_jobs;
  std::map<std::pair<int, int>, std::unique_ptr<DurationModel>> durations;
  explicit Active(PluginConfig c)
      : cfg(std::move(c)),
        topology(cfg.ramp, cfg.source),
        profile(Profile::by_name(cfg.profile, cfg.source)),
        policy(cfg.decides_gpus() ? nullptr
                                  : make_policy(cfg.policy, cfg.source, installed_model_dirs())),
        cache(kLookaheadCacheBytes),
        rng(static_cast<std::uint64_t>(cfg.seed)),
        graph_jobs(kGraphJobCacheBytes) {
    if (!cfg.decides_gpus()) return;
    cluster = gpu_cluster_of(cfg);
    gpu_policy = GpuPolicy::parse(cfg.policy, cfg.source + ": policy", installed_model_dirs());
  }
  DurationModel& durations_for(int nodes, int gpus_per_node) {
    std::unique_ptr<DurationModel>& m = durations[{nodes, gpus_per_node}];
    if (!m) {
      ClusterSpec spec = *cluster;
      spec.gpus_per_server = gpus_per_node;
      if (spec.num_servers() != nodes) spec.ramp.groups = spec.ramp.racks = 1;
      spec.ramp.servers_per_rack = nodes / (spec.ramp.groups * spec.ramp.racks);
      m = std::make_unique<DurationModel>(std::make_shared<PhysicalEstimator>(
          spec, PhysicalConstants::calibrated(), cfg.throughput));
    }
    return *m;
  }
};

namespace {

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
    : config_path_(std::move(config_path)), log_(std::move(log)) {}

Engine::~Engine() = default;

// Every line reaches slurmctld's log escaped: user text (job names, model
// names, paths) must not be able to forge a log line.
void Engine::log(LogLevel level, const std::string& message) const {
  if (log_) log_(level, slurm::escape_for_log(message));
}

void Engine::log_once(LogLevel level, const std::string& message) {
  if (message == last_logged_) return;
  last_logged_ = message;
  log(level, message);
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
  std::vector<std::string> errors;
  SchedParams next = parse_sched_params(text, &errors);
  for (const std::string& error : errors)
    log(LogLevel::kError, "pacml: " + error +
                              "; ignored, the other SchedulerParameters settings apply (" +
                              (next.empty() ? std::string("none") : next.text()) + ")");
  if (next.text() != sched_.text())
    log(LogLevel::kInfo, "pacml: SchedulerParameters settings: " +
                             (next.empty() ? std::string("none") : next.text()) +
                             " (they take precedence over pacml.conf)");
  sched_ = std::move(next);
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
        << st.st_ino << '|' << sched_.text() << '|';
  // ... and of the correction file it names (watched even when it is bad)
  if (stamp.str() + correction_file_stamp(correction_watch_) == file_stamp_)
    return active_ != nullptr;
  correction_watch_ = correction_path_in(path);
  file_stamp_ = stamp.str() + correction_file_stamp(correction_watch_);
  try {
    PluginConfig loaded = load_plugin_config(path);
    apply_sched_params(loaded, sched_);
    if (sched_.policy) check_policy_for(loaded, loaded.policy, "SchedulerParameters pacml_policy");
    auto next = std::make_unique<Active>(std::move(loaded));
    const PluginConfig& c = next->cfg;
    try {
      log_file_.open(c.decision_log);
    } catch (const InputError& e) {
      log(LogLevel::kError, std::string("pacml: ") + e.what() + "; no decision log");
    }
    std::string parts;
    for (const std::string& p : c.partitions) parts += (parts.empty() ? "" : ",") + p;
    active_ = std::move(next);
    ++config_generation_;
    last_logged_.clear();
    log(LogLevel::kInfo,
        "pacml: loaded " + path +
            (sched_.empty() ? std::string() : " with SchedulerParameters " + sched_.text()) +
            ": policy " + c.policy + ", profile " + c.profile + ", " +
            (active_->cluster ? "GPU cluster " + active_->cluster->summary()
                              : "RAMP " + active_->topology.shape()) +
            ", nodes " +
            (c.nodes.empty() ? std::string("from the partition")
                             : c.nodes.front() + ".." + c.nodes.back()) +
            ", partitions " + (parts.empty() ? "(default)" : parts) + ", on_block " +
            (c.on_block == OnBlock::kReject ? "reject" : "queue") + ", margin " +
            messages::number(c.margin) +
            (c.decision_log.empty() ? "" : ", decision log " + c.decision_log) +
            correction_summary(c.step_correction.get()));
  } catch (const std::exception& e) {
    log_once(LogLevel::kError, std::string("pacml: ") + e.what() + keep);
  }
  return active_ != nullptr;
}

void Engine::job_seen(const std::string& decision_id, std::uint32_t job_id, uid_t owner,
                      bool pending) {
  log_file_.resolve(decision_id, job_id, owner);
  if (pending) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = reservations_.find(decision_id);
  if (it != reservations_.end() && it->second.uid == owner) reservations_.erase(it);
}

bool Engine::holds_reservations(double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = reservations_.begin(); it != reservations_.end();)
    it = it->second.until <= now ? reservations_.erase(it) : std::next(it);
  return !reservations_.empty();
}

bool Engine::decides_gpus() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ && active_->cluster.has_value();
}

bool Engine::annotates_comment() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ && active_->cfg.annotate == "comment";
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
    if (wants) {
      result = pass_through("pacml: no valid " + sched_.conf.value_or(config_path_) +
                                "; job passed through unchanged",
                            true);
      result.user_notice = messages::passed_through_notice("pacml is not configured here");
    }
  } else {
    try {
      result = decide(input, view, *active_);
    } catch (const std::exception& e) {
      result = pass_through(
          std::string("pacml: internal error, job passed through unchanged: ") + e.what(), true);
      result.user_notice = messages::passed_through_notice("pacml hit an internal error");
    }
  }
  result.log_message = slurm::escape_for_log(result.log_message);
  result.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

// ---- one decision -------------------------------------------------------------

// The state of one submission as the steps of decide() fill it in.
struct Engine::Decision {
  Decision(const SubmitInput& i, const SlurmView& v, Active& act)
      : in(i), view(v), a(act), cfg(act.cfg), t0(std::chrono::steady_clock::now()) {}
  const SubmitInput& in;
  const SlurmView& view;
  Active& a;
  const PluginConfig& cfg;
  const std::chrono::steady_clock::time_point t0;

  JobRequest req;
  std::string who;                 // "job 'NAME' of uid U", for the log
  std::string partition;           // the managed partition the job runs in
  std::string partition_rewrite;   // set on the job when it named none (or several)
  std::vector<std::string> names;  // server index → Slurm node
  JobGraphPtr graph;
  std::string graph_path;
  long steps = 0;
  std::optional<JctEstimator> estimator;
  double unit = 1;  // seconds per profile time unit
  double seq_s = 0;
  // The requirement: what the user asked (req_beta, deadline_s) and what the
  // predicted JCT must meet once the admin's margin is applied (beta, bound_s).
  std::string requirement;  // "beta", "deadline" or "time_limit"
  double req_beta = 1, beta = 1;
  std::optional<double> deadline_s, bound_s;
  // The cluster now, and with only unusable nodes excluded (for queueing).
  std::optional<ClusterState> now_state, idle_state;
  std::set<int> queued_for;
  int free_servers = 0;
  // The choice.
  int action = 0;
  Estimate est;
  Outcome outcome = Outcome::kPlaced;
  std::string blocked_reason;
  std::uint32_t time_limit = 0;  // 0: the job's own
  std::string time_limit_source = "job";
  std::string notice;
  // A GPU cluster's decision: the job, its durations, the GPUs free now and
  // on the idle cluster, and the choice.
  std::shared_ptr<const ParallelJob> gpu_job;
  DurationModel* durations = nullptr;
  int gpus_per_node = 0;
  bool gres_gpus = false;   // the nodes' GRES show GPUs (else the description's G)
  std::vector<int> usable;  // indices into `names` the job may run on
  std::optional<GpuClusterState> gpus_now, gpus_idle;
  // What a learned GPU policy also reads (GpuDecisionInput): this plugin's
  // decisions queued and not started, and the offered load of the last day.
  int queued_jobs = 0;
  double queued_gpus = 0, recent_load = 0;
  int gpus = 0;
  ParallelPlan plan;
  mutable CorrectedRunTimes times;  // pacml.conf's correction: applied (step_correction_source.h)

  std::string model_name() const { return graph ? graph->name() : req.model; }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  messages::Need need() const {
    return messages::Need{req_beta, deadline_s, seq_s, cfg.margin,
                          bound_s ? *bound_s : beta * seq_s};
  }
};

namespace {

constexpr JobId kHeld = 1;
// The longest time limit pacml sets from a prediction: longer ones come from
// crafted or mistyped step counts, and Slurm would print them as UNLIMITED
// or thousands of days.
constexpr double kMaxLimitDays = 365;

bool listed(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::optional<SubmitResult> choose_partition(Engine::Decision& d);
std::optional<SubmitResult> map_servers(Engine::Decision& d);
std::optional<SubmitResult> set_requirement(Engine::Decision& d);
std::optional<SubmitResult> set_time_limit(Engine::Decision& d);
void set_slurm_deadline(const Engine::Decision& d, SubmitResult& r);

// A RAMP placement's node count against the user's -N: a RAMP block's size
// follows from the degree, so a count outside -N is refused, never replaced.
std::optional<SubmitResult> check_node_count(const Engine::Decision& d) {
  const int count = d.est.servers_used();
  if ((d.in.min_nodes > 0 && count < d.in.min_nodes) ||
      (d.in.max_nodes > 0 && count > d.in.max_nodes))
    return rejection(
        RejectKind::kBlocked,
        messages::ramp_count_outside(count, d.est.degree, d.in.min_nodes, d.in.max_nodes));
  return std::nullopt;
}

}  // namespace

SubmitResult Engine::decide(const SubmitInput& in, const SlurmView& view, Active& a) {
  Decision d(in, view, a);
  try {
    d.req = extract_request(in.spank_env, in.comment);
  } catch (const InputError& e) {
    return rejection(RejectKind::kBadRequest, std::string("pacml: ") + e.what());
  }
  if (!d.req.wants_pacml) return SubmitResult();
  d.who = "job '" + in.job_name + "' of uid " + std::to_string(in.uid);
  if (auto done = choose_partition(d)) return *done;
  if (auto done = map_servers(d)) return *done;
  if (a.cluster) return decide_gpus(d);
  if (auto done = load_graph(d)) return *done;
  if (auto done = set_requirement(d)) return *done;
  if (!d.in.required_nodes.empty())
    return rejection(RejectKind::kBadRequest, messages::ramp_refuses_node_list());
  read_cluster(d);
  if (auto done = choose_placement(d)) return *done;
  if (auto done = check_node_count(d)) return *done;
  if (auto done = set_time_limit(d)) return *done;
  return accept(d);
}

namespace {

// The partition the job runs in: the one it names, the managed one of a list
// it names, or (none named) the default partition if pacml manages it, else
// pacml's first.
std::optional<SubmitResult> choose_partition(Engine::Decision& d) {
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
std::optional<SubmitResult> map_servers(Engine::Decision& d) {
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

double positive_beta(double beta) {
  return beta > 0 ? beta : 1e-12;
}

// β from the job's deadline, β or --time, and the bound the predicted JCT
// must meet: the admin's safety margin asks JCT × (1 + margin) ≤ requirement.
std::optional<SubmitResult> set_requirement(Engine::Decision& d) {
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
std::optional<SubmitResult> set_time_limit(Engine::Decision& d) {
  if (!d.req.steps || d.in.time_unlimited) return std::nullopt;
  const double jct_s = d.est.jct * d.unit;
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

}  // namespace

// The job's graph: a zoo model, a site graph (graph_dirs) or the user's graph
// as the SPANK plugin sent it (GraphSource: user_graph_files, the limits).
std::optional<SubmitResult> Engine::read_graph(Decision& d) {
  const JobRequest& req = d.req;
  try {
    if (!req.model.empty()) {
      d.graph = graphs_.zoo_model(req.model);
    } else if (!req.graph.empty()) {
      GraphSourceOptions options{
          d.cfg.graph_dirs,
          d.cfg.user_graph_files,
          {d.cfg.max_graph_bytes, d.cfg.max_graph_ops, d.cfg.max_graph_edges}};
      d.graph = graphs_.job_graph({req.graph, req.graph_compact, req.graph_error}, options,
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

std::optional<SubmitResult> Engine::load_graph(Decision& d) {
  if (auto done = read_graph(d)) return *done;
  d.steps = d.req.steps.value_or(d.cfg.default_steps);
  d.estimator.emplace(d.a.topology, d.a.profile, static_cast<int>(d.steps));
  d.unit = d.a.profile.time_unit == "ms" ? 1e-3 : 1.0;
  d.seq_s = d.estimator->sequential_jct(*d.graph) * d.unit;
  return std::nullopt;
}

// Free servers: idle, available nodes of the mapping that no recent decision
// holds. Reservations whose job is seen running have done their work.
void Engine::read_cluster(Decision& d) {
  std::set<int> reserved;
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    if (it->second.until <= d.in.now) {
      it = reservations_.erase(it);
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
      for (auto& [id, r] : reservations_)
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

namespace {

// The policy's action on `cluster`, and its estimate.
int evaluate(Engine::Decision& d, const ClusterState& cluster, Estimate& out) {
  const std::vector<bool> mask = action_mask(cluster, kMaxAction);
  DecisionContext ctx{*d.graph, d.beta, cluster, mask, *d.estimator, &d.a.cache, d.a.rng};
  const int action = d.a.policy->choose(ctx);
  if (action > 0) out = d.estimator->estimate(*d.graph, action, d.beta, cluster, &d.a.cache);
  return action;
}

bool meets(const Engine::Decision& d, const Estimate& e) {
  if (!e.placed) return false;
  if (d.bound_s) return e.jct * d.unit <= *d.bound_s;
  return e.accepted();
}

// Why a job is blocked: what the policy chose, and the fastest placement now.
std::string blocked_reason(Engine::Decision& d) {
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
bool queue(Engine::Decision& d) {
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

// The decision log fields every outcome shares.
nlohmann::json log_record(const Engine::Decision& d, const std::string& id, Outcome outcome) {
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
                        {"action", d.action},
                        {"free_servers", d.free_servers},
                        {"jct_seq", d.seq_s},
                        {"comment", slurm::format_comment(request)}};
  if (d.deadline_s) rec["deadline_s"] = *d.deadline_s;
  if (!d.graph_path.empty()) rec["graph"] = d.graph_path;
  return rec;
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
std::string request_comment(const Engine::Decision& d) {
  slurm::RequestFields f;
  if (!d.req.graph.empty()) f.graph = d.graph_path.empty() ? d.req.graph : d.graph_path;
  if (!d.req.model.empty()) f.model = d.req.model;
  f.beta = d.req.beta;
  f.deadline = d.req.deadline;
  f.steps = d.req.steps;
  return slurm::format_comment(f);
}

}  // namespace

std::string Engine::next_decision_id() {
  return new_decision_id(++counter_);
}

// The policy's choice on the cluster now; a blocked job is rejected, or
// queued (on_block: queue) if the idle cluster could meet its requirement.
std::optional<SubmitResult> Engine::choose_placement(Decision& d) {
  d.action = evaluate(d, *d.now_state, d.est);
  if (d.action > 0 && meets(d, d.est)) return std::nullopt;
  d.blocked_reason = blocked_reason(d);
  if (d.cfg.on_block == OnBlock::kQueue) {
    if (queue(d)) return std::nullopt;
    d.blocked_reason += "; it cannot be met on an idle cluster either";
  }
  return reject_blocked(d);
}

// A job no choice serves: refused with d.blocked_reason, and logged.
SubmitResult Engine::reject_blocked(Decision& d) {
  SubmitResult r = rejection(RejectKind::kBlocked, messages::blocked(d.blocked_reason));
  r.decision_id = next_decision_id();
  nlohmann::json rec = log_record(d, r.decision_id, Outcome::kRejected);
  rec["reason"] = d.blocked_reason;
  rec["latency_ms"] = d.elapsed_ms();
  log_file_.add(r.decision_id, std::move(rec), false, d.in.now, 0);
  return r;
}

// Accepted (or queued): the rewrite, the reservation and the log line.
SubmitResult Engine::accept(Decision& d) {
  SubmitResult r;
  r.outcome = d.outcome;
  r.partition = d.partition_rewrite;
  for (int s : d.est.placement.servers) r.nodes.push_back(d.names[s]);
  r.num_nodes = static_cast<int>(r.nodes.size());
  r.time_limit_minutes = d.time_limit;
  r.user_notice = d.notice;
  set_slurm_deadline(d, r);
  r.decision_id = next_decision_id();
  r.annotate_admin_comment = d.cfg.annotate == "admin_comment";
  if (d.req.origin == "spank" && !has_pacml_words(d.in.comment))
    r.request_comment = request_comment(d);
  const double jct_s = d.est.jct * d.unit;
  const bool queued = d.outcome == Outcome::kQueued;
  r.annotation = "pacml-decision:degree=" + std::to_string(d.est.degree) +
                 ",action=" + std::to_string(d.action) + ",servers=" + std::to_string(r.num_nodes) +
                 ",jct=" + messages::number(jct_s, 6) + "s,beta=" + messages::number(d.req_beta) +
                 ",policy=" + d.cfg.policy + (queued ? ",queued" : "") +
                 ",decision=" + r.decision_id;
  if (d.cfg.reservation_ttl > 0)
    reservations_[r.decision_id] =
        Reservation{d.est.placement.servers, d.in.now + d.cfg.reservation_ttl, queued, 0, d.in.uid};

  nlohmann::json coords = nlohmann::json::array();
  for (int s : d.est.placement.servers) {
    const ServerCoord c = d.a.topology.coord(s);
    coords.push_back({c.c, c.r, c.s});
  }
  const double latency = d.elapsed_ms();
  nlohmann::json rec = log_record(d, r.decision_id, d.outcome);
  rec["degree"] = d.est.degree;
  rec["node_count"] = r.num_nodes;
  rec["nodes"] = slurm::join_hostlist(r.nodes);
  rec["servers"] = d.est.placement.servers;
  rec["coords"] = coords;
  rec["jct"] = jct_s;
  if (r.slurm_deadline) rec["slurm_deadline"] = r.slurm_deadline;
  // squeue's time_limit: the limit in force (pacml's, else the job's own)
  const std::uint32_t in_force = d.time_limit ? d.time_limit : d.in.time_limit_minutes;
  rec["time_limit"] = in_force ? nlohmann::json(in_force) : nlohmann::json(nullptr);
  rec["time_limit_source"] = in_force ? d.time_limit_source : std::string("none");
  rec["latency_ms"] = latency;
  log_file_.add(r.decision_id, std::move(rec), d.cfg.resolve_job_ids, d.in.now, 60);

  const std::string limit_text = d.time_limit ? "time limit " + messages::minutes(d.time_limit) +
                                                    " from " + d.time_limit_source
                                              : "time limit the job's own";
  r.log_message = "pacml: " + d.who + ": model " + d.graph->name() + ", " +
                  std::to_string(d.steps) + " steps, must " + messages::need(d.need()) + " -> " +
                  (queued ? "queued at degree " : "degree ") + std::to_string(d.est.degree) +
                  " on " + slurm::join_hostlist(r.nodes) + " (" + std::to_string(r.num_nodes) +
                  " servers), predicted JCT " + messages::seconds(jct_s) + ", " + limit_text +
                  ", policy " + d.cfg.policy + ", " + messages::number(latency, 3) +
                  " ms [decision " + r.decision_id + "]";
  if (queued) r.log_message += "; was blocked: " + d.blocked_reason;
  return r;
}

// ---- GPU cluster ---------------------------------------------------------------
// (plugin/README.md, "GPU cluster"): k GPUs chosen with the physical model by
// the GPU policies the trace replay uses (core/policy/gpu_policy.h), asked of
// Slurm as counts so that Slurm picks the nodes (a drained node never strands
// a queued job) and users' -N, -w and --exclude keep their meaning.

SubmitResult Engine::decide_gpus(Decision& d) {
  if (auto done = load_gpu_job(d)) return *done;
  if (auto done = set_requirement(d)) return *done;
  read_gpu_cluster(d);
  if (auto done = choose_gpu_count(d)) return *done;
  if (auto done = set_time_limit(d)) return *done;
  return accept_gpus(d);
}

namespace {

// G: the fewest GPUs any node of the partition reports in its GRES (so that
// ⌈k/G⌉ nodes always hold k GPUs), else the cluster description's.
int gpus_per_node(const Engine::Decision& d, int described) {
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
bool fits_user_nodes(const Engine::Decision& d, int gpus) {
  const int nodes = nodes_for(gpus, d.gpus_per_node);
  if (d.in.min_nodes > 0 && nodes < d.in.min_nodes) return false;
  if (d.in.max_nodes > 0 && nodes > d.in.max_nodes) return false;
  return nodes >= static_cast<int>(d.in.required_nodes.size());
}

GpuDecisionInput gpu_input(Engine::Decision& d, const GpuClusterState& state) {
  GpuDecisionInput in;
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
// kTurnAway when the policy will not run the job at all.
int gpus_meeting(Engine::Decision& d, const GpuClusterState& state) {
  const GpuDecisionInput in = gpu_input(d, state);
  const int k = choose_gpus(*d.a.gpu_policy, in, d.a.rng);
  if (k == kTurnAway) return kTurnAway;
  return k > 0 && in.seconds(k) <= in.deadline ? k : 0;
}

// Why a policy that could start the job (capped:X, the learned policy)
// declined it: what its cheapest start would have cost.
std::string gpu_turned_away_reason(Engine::Decision& d) {
  const GpuClusterState& now = *d.gpus_now;
  const GpuDecisionInput in = gpu_input(d, now);
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

std::string gpu_blocked_reason(Engine::Decision& d) {
  const GpuClusterState& now = *d.gpus_now;
  const GpuDecisionInput in = gpu_input(d, now);
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
void set_slurm_deadline(const Engine::Decision& d, SubmitResult& r) {
  if (d.requirement != "deadline") return;
  const double jct_s = d.est.jct * d.unit;
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

}  // namespace

// A zoo model as the physical model costs it on the cluster's device.
std::optional<SubmitResult> Engine::zoo_gpu_job(Decision& d) {
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
std::optional<SubmitResult> Engine::graph_gpu_job(Decision& d) {
  if (auto done = read_graph(d)) return *done;
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
  d.a.graph_jobs.insert(key, d.gpu_job, Active::kBatchesKept * Active::kLayerBytes * layers);
  return std::nullopt;
}

std::optional<SubmitResult> Engine::load_gpu_job(Decision& d) {
  if (d.req.model.empty() && d.req.graph.empty())
    return rejection(RejectKind::kBadRequest, messages::missing_graph());
  if (d.names.empty())
    return rejection(RejectKind::kUnmanagedPartition, messages::no_nodes(d.partition));
  if (auto done = d.req.graph.empty() ? zoo_gpu_job(d) : graph_gpu_job(d)) return *done;
  const std::shared_ptr<const ParallelJob>& job = d.gpu_job;
  d.gpus_per_node = gpus_per_node(d, 0);
  d.gres_gpus = d.gpus_per_node > 0;
  if (!d.gres_gpus) d.gpus_per_node = d.a.cluster->gpus_per_server;
  d.durations = &d.a.durations_for(static_cast<int>(d.names.size()), d.gpus_per_node);
  d.steps = d.req.steps.value_or(d.cfg.default_steps);
  d.unit = 1;
  d.times = CorrectedRunTimes(d.cfg.step_correction.get(), *d.durations, *job, d.model_name());
  d.seq_s = static_cast<double>(d.steps) * d.durations->estimator().single_gpu_step_time(*job) *
            d.times.single_gpu_factor();
  return std::nullopt;
}

// GPUs free now (Slurm's idle and allocated GRES, less recent decisions not
// yet started) and on the idle cluster (down, drained, excluded nodes only).
void Engine::read_gpu_cluster(Decision& d) {
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
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    if (it->second.until <= d.in.now) {
      it = reservations_.erase(it);
      continue;
    }
    if (it->second.gpus > 0 && !it->second.queued)
      if (auto held = d.gpus_now->find(it->second.gpus)) d.gpus_now->take(*held);
    if (it->second.gpus > 0 && it->second.queued) ++d.queued_jobs, d.queued_gpus += it->second.gpus;
    ++it;
  }
  d.free_servers = d.gpus_now->free_gpus();
  d.recent_load = count_offered(d);
}

// Adds this submission to the last day's offered GPU-seconds (at the count
// it asked for) and returns that load per GPU-second of the cluster.
double Engine::count_offered(const Decision& d) {
  constexpr double kWindow = 24 * 3600.0;
  const int cluster_gpus = d.gpus_idle->num_gpus();
  const int k = std::clamp(d.in.requested_gpus, 1, std::max(1, cluster_gpus));
  const double seconds = d.times.seconds(d.steps, k);
  const double now = static_cast<double>(d.in.now);
  if (std::isfinite(seconds)) offered_.emplace_back(now, k * seconds), offered_sum_ += k * seconds;
  while (!offered_.empty() &&
         (offered_.front().first < now - kWindow || offered_.size() > 100000)) {
    offered_sum_ -= offered_.front().second;
    offered_.pop_front();
  }
  return cluster_gpus > 0 ? offered_sum_ / (kWindow * cluster_gpus) : 0;
}

// The policy's GPU count now; a blocked job is rejected, or queued (on_block:
// queue) at the count the policy picks on the idle cluster.
std::optional<SubmitResult> Engine::choose_gpu_count(Decision& d) {
  d.gpus = gpus_meeting(d, *d.gpus_now);
  if (d.gpus == kTurnAway) {
    d.blocked_reason = gpu_turned_away_reason(d);
    return reject_blocked(d);
  }
  if (d.gpus == 0) {
    d.blocked_reason = gpu_blocked_reason(d);
    if (d.cfg.on_block == OnBlock::kQueue) d.gpus = std::max(0, gpus_meeting(d, *d.gpus_idle));
    if (d.gpus == 0) {
      if (d.cfg.on_block == OnBlock::kQueue)
        d.blocked_reason += "; it cannot be met on an idle cluster either";
      return reject_blocked(d);
    }
    d.outcome = Outcome::kQueued;
  }
  d.action = d.gpus;
  d.plan = d.durations->estimator().plan(*d.gpu_job, d.gpus, Strategy::kAuto);
  d.est.placed = true;
  d.est.jct = d.times.seconds(d.steps, d.gpus);
  return std::nullopt;
}

// Accepted (or queued): counts for Slurm, the plan for the job, the log line.
SubmitResult Engine::accept_gpus(Decision& d) {
  SubmitResult r;
  r.outcome = d.outcome;
  r.partition = d.partition_rewrite;
  r.shape = request_shape(d.gpus, d.gpus_per_node);
  r.gres_gpus = d.gres_gpus;
  r.num_nodes = r.shape.nodes;
  r.time_limit_minutes = d.time_limit;
  r.user_notice = d.notice;
  r.decision_id = next_decision_id();
  r.annotate_admin_comment = d.cfg.annotate == "admin_comment";
  if (d.req.origin == "spank" && !has_pacml_words(d.in.comment))
    r.request_comment = request_comment(d);
  GpuPlan plan;
  plan.gpus = d.gpus;
  plan.nodes = r.shape.nodes;
  plan.gpus_per_node = r.shape.gpus_per_node;
  plan.strategy = strategy_name(d.plan.strategy);
  plan.tp = d.plan.tp, plan.pp = d.plan.pp, plan.dp = d.plan.dp;
  plan.jct_s = d.est.jct;
  if (d.requirement == "deadline")
    plan.deadline = static_cast<long>(std::ceil(d.in.now + *d.deadline_s));
  set_slurm_deadline(d, r);
  if (d.in.requested_gpus > 0 && d.in.requested_gpus != d.gpus) {  // said, not silently replaced
    const std::string notice =
        messages::gpus_replaced_notice(d.in.requested_gpus, d.gpus, d.cfg.policy);
    r.user_notice += (r.user_notice.empty() ? "" : "; ") + notice;
  }
  plan.policy = d.cfg.policy;
  plan.decision = r.decision_id;
  r.annotation = format_plan(plan);
  r.job_env = plan_environment(plan);
  const bool queued = d.outcome == Outcome::kQueued;
  if (d.cfg.reservation_ttl > 0)
    reservations_[r.decision_id] =
        Reservation{{}, d.in.now + d.cfg.reservation_ttl, queued, d.gpus, d.in.uid};

  nlohmann::json rec = log_record(d, r.decision_id, d.outcome);
  rec["degree"] = d.gpus;  // the replay readers' name for the parallelism
  rec["gpus"] = d.gpus;
  rec["node_count"] = r.num_nodes;
  rec["gpus_per_node"] = r.shape.gpus_per_node;
  rec["whole_nodes"] = r.shape.whole_nodes;
  rec["strategy"] = plan.strategy;
  rec["tp"] = plan.tp, rec["pp"] = plan.pp, rec["dp"] = plan.dp;
  rec["jct"] = d.est.jct;
  // What `pacml history join` lines up with accounting to fit a correction
  // (doc/PHYSICAL.md §11): the job's timing inputs and its predicted step.
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
  if (r.slurm_deadline) rec["slurm_deadline"] = r.slurm_deadline;
  const std::uint32_t in_force = d.time_limit ? d.time_limit : d.in.time_limit_minutes;
  rec["time_limit"] = in_force ? nlohmann::json(in_force) : nlohmann::json(nullptr);
  rec["time_limit_source"] = in_force ? d.time_limit_source : std::string("none");
  const double latency = d.elapsed_ms();
  rec["latency_ms"] = latency;
  log_file_.add(r.decision_id, std::move(rec), d.cfg.resolve_job_ids, d.in.now, 60);

  const std::string limit_text = d.time_limit ? "time limit " + messages::minutes(d.time_limit) +
                                                    " from " + d.time_limit_source
                                              : "time limit the job's own";
  r.log_message =
      "pacml: " + d.who + ": model " + d.model_name() + ", " + std::to_string(d.steps) +
      " steps, must " + messages::need(d.need()) + " -> " + (queued ? "queued at " : "") +
      messages::gpu_request(r.shape) + ", " + plan.strategy + " (tp " + std::to_string(plan.tp) +
      ", pp " + std::to_string(plan.pp) + ", dp " + std::to_string(plan.dp) + "), predicted JCT " +
      messages::seconds(d.est.jct) + ", " + limit_text + ", policy " + d.cfg.policy + ", " +
      messages::number(latency, 3) + " ms [decision " + r.decision_id + "]";
  if (queued) r.log_message += "; was blocked: " + d.blocked_reason;
  return r;
}

// ---- pacml.conf against Slurm -------------------------------------------------

bool Engine::needs_slurm_check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ && checked_generation_ != config_generation_;
}

namespace {

// The checks of pacml.conf against Slurm, each adding its warnings.
void check_partitions(const PluginConfig& cfg, const SlurmCatalog& slurm,
                      std::vector<std::string>& warnings) {
  std::string known;
  for (const auto& [name, nodes] : slurm.partitions) known += (known.empty() ? "" : ", ") + name;
  for (const std::string& p : cfg.partitions)
    if (!slurm.partitions.count(p))
      warnings.push_back(messages::unknown_partition(cfg.source, p, known));
}

void check_nodes(const PluginConfig& cfg, const SlurmCatalog& slurm,
                 std::vector<std::string>& warnings) {
  const std::set<std::string> all(slurm.nodes.begin(), slurm.nodes.end());
  std::vector<std::string> missing;
  for (const std::string& n : cfg.nodes)
    if (!n.empty() && !all.count(n)) missing.push_back(n);
  if (!missing.empty())
    warnings.push_back(messages::unknown_nodes(cfg.source, slurm::join_hostlist(missing),
                                               static_cast<long>(missing.size())));
}

// The RAMP shape against the nodes it maps: pacml.conf's, else the managed
// partition's.
void check_shape(const PluginConfig& cfg, const std::string& shape, const SlurmCatalog& slurm,
                 std::vector<std::string>& warnings) {
  std::string what;
  long mapped = 0;
  if (!cfg.nodes.empty()) {
    mapped = std::count_if(cfg.nodes.begin(), cfg.nodes.end(), [](auto& n) { return !n.empty(); });
    what = "'nodes' names " + std::to_string(mapped);
  } else {
    const std::string part =
        cfg.partitions.empty() ? slurm.default_partition : cfg.partitions.front();
    auto it = slurm.partitions.find(part);
    if (it == slurm.partitions.end()) return;
    mapped = static_cast<long>(it->second.size());
    what = "partition " + part + " has " + std::to_string(mapped);
  }
  if (mapped != cfg.num_servers())
    warnings.push_back(
        messages::shape_mismatch(cfg.source, shape, cfg.num_servers(), what, mapped));
}

}  // namespace

std::vector<std::string> Engine::check_against_slurm(const SlurmCatalog& slurm) {
  std::vector<std::string> warnings;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!active_ || checked_generation_ == config_generation_) return warnings;
    checked_generation_ = config_generation_;
    check_partitions(active_->cfg, slurm, warnings);
    check_nodes(active_->cfg, slurm, warnings);
    if (active_->cfg.cluster.empty())  // a cluster file takes the partition as it is
      check_shape(active_->cfg, active_->topology.shape(), slurm, warnings);
  }
  for (const std::string& w : warnings) log(LogLevel::kWarning, w);
  return warnings;
}

}  // namespace pacml::plugin
