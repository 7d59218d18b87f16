#include "plugin/engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "plugin/active_config.h"
#include "plugin/decision.h"
#include "plugin/gpu_decision.h"
#include "plugin/messages.h"
#include "plugin/ramp_decision.h"
#include "plugin/request.h"
#include "plugin/step_correction_source.h"

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
    auto next = std::make_unique<ActiveConfig>(std::move(loaded));
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
            ": policy " + c.policy + ", world " + world_name(c.world) + ", " +
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

bool Engine::in_gpu_world() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_ && active_->cfg.world == World::kGpu;
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

// ---- one decision
// -------------------------------------------------------------

// The steps both worlds share, then the world's own pipeline
// (ramp_decision.h, gpu_decision.h).
SubmitResult Engine::decide(const SubmitInput& in, const SlurmView& view, ActiveConfig& a) {
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
  EngineState state{graphs_, log_file_, reservations_, offered_, counter_};
  if (a.cluster) return decide_gpus(std::move(d), state);
  return decide_ramp(std::move(d), state);
}

// ---- pacml.conf against Slurm
// -------------------------------------------------

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
