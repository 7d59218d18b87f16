// The decision engine behind job_submit/pacml, free of Slurm types so that it
// can be tested on its own: the C shim (job_submit_pacml.cpp) turns a
// job_desc into a SubmitInput, gives a SlurmView of slurmctld's node state,
// and applies the SubmitResult to the job.
//
// One decision (doc/MODEL.md §4, §7 with a real cluster):
//   1. re-read pacml.conf if it changed (a bad file keeps the last good one);
//   2. read the job's request; jobs without pacml options pass through;
//   3. load the graph (cached), turn the deadline / --time into β;
//   4. free servers = idle, available Slurm nodes of the RAMP mapping that no
//      recent pacml decision has reserved;
//   5. the policy picks an action, the estimator places it (RAMP first fit)
//      and predicts its JCT;
//   6. accepted → exact node list, node count, exclusive, time limit, an
//      annotation; blocked → reject with a message, or queue at the degree
//      the policy picks on the idle cluster.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plugin/config.h"
#include "plugin/decision_log.h"
#include "plugin/graph_source.h"

namespace pacml::plugin {

enum class NodeStatus { kFree, kBusy, kUnavailable, kUnknown };

// slurmctld's state as the engine needs it.
class SlurmView {
 public:
  virtual ~SlurmView() = default;
  // Nodes of a partition in Slurm's order; false if not known (yet).
  virtual bool partition_nodes(const std::string& partition,
                               std::vector<std::string>& nodes) const = 0;
  // The default partition ("" if unknown).
  virtual std::string default_partition() const = 0;
  virtual NodeStatus node_status(const std::string& node) const = 0;
};

struct SubmitInput {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<std::string> spank_env;  // "KEY=VALUE"
  std::string comment;
  std::string partition;                 // as requested; "" = default
  std::uint32_t time_limit_minutes = 0;  // --time; 0 = not given
  std::string work_dir;
  std::string job_name;
  double now = 0;  // epoch seconds
};

enum class Outcome { kPassThrough, kPlaced, kQueued, kRejected };
enum class RejectKind { kNone, kBadRequest, kBadTime, kBlocked, kUnmanagedPartition };
const char* outcome_name(Outcome outcome);

struct SubmitResult {
  Outcome outcome = Outcome::kPassThrough;
  RejectKind reject = RejectKind::kNone;
  std::string user_message;  // for err_msg (rejections)
  std::string log_message;   // one slurmctld log line ("" = nothing to say)
  bool log_is_error = false;
  // The rewrite (placed / queued).
  int num_nodes = 0;
  std::vector<std::string> nodes;
  std::string partition;  // set when the job named none
  std::uint32_t time_limit_minutes = 0;
  std::string annotation;  // "pacml-decision:degree=…"
  bool annotate_admin_comment = true;
  std::string decision_id;
  double latency_ms = 0;
};

enum class LogLevel { kInfo, kError, kDebug };
using LogFn = std::function<void(LogLevel, const std::string&)>;

class Engine {
 public:
  // `config_path` is pacml.conf; `log` receives slurmctld log lines.
  Engine(std::string config_path, LogFn log);
  ~Engine();

  // Re-reads pacml.conf if it (or the SchedulerParameters settings) changed
  // since the last look. Returns whether a good configuration is active.
  // Thread-safe.
  bool refresh_config();
  // slurm.conf's SchedulerParameters as slurmctld has it now (the shim passes
  // slurm_conf.sched_params on every submission, so `scontrol reconfigure`
  // is seen by the next one). Parsed only when the text changes; a bad pacml_*
  // token is logged as an error naming it, and the last good SchedulerParameters
  // settings stay in force. Thread-safe.
  void set_sched_params(const std::string& text);
  // The pacml.conf path in use: pacml_conf= if given, else the default.
  std::string config_path() const;
  bool has_config() const;
  // A copy of the active configuration (default-constructed if none).
  PluginConfig config() const;

  SubmitResult submit(const SubmitInput& input, const SlurmView& view);

  // The job of a decision has left PENDING (started, ended or was cancelled):
  // its servers are no longer held for it. Thread-safe.
  void release(const std::string& decision_id);
  // Decisions whose servers are still held.
  std::vector<std::string> held_decisions() const;

  DecisionLog& decision_log() { return log_file_; }
  GraphSource& graphs() { return graphs_; }

 private:
  struct Active;
  SubmitResult decide(const SubmitInput& input, const SlurmView& view, Active& active);
  void log_once(LogLevel level, const std::string& message);

  std::string config_path_;  // the default path (next to slurm.conf)
  LogFn log_;
  std::string sched_text_;  // SchedulerParameters last seen
  SchedParams sched_;       // its last good pacml_* settings
  mutable std::mutex mutex_;
  std::unique_ptr<Active> active_;
  std::string file_stamp_;   // mtime/size/inode of the config last read
  std::string last_logged_;  // suppresses repeats of the same config message
  GraphSource graphs_;
  DecisionLog log_file_;
  // Servers promised to recent decisions whose jobs have not started yet:
  // slurmctld creates the job only after job_submit returns and starts it a
  // moment later, so its nodes still look idle to the next decision.
  struct Reservation {
    std::vector<int> servers;
    double until = 0;     // reservation_ttl after the decision
    bool queued = false;  // queued jobs' servers are only avoided when possible
  };
  std::map<std::string, Reservation> reservations_;  // by decision id
  std::uint64_t counter_ = 0;
  long start_time_ = 0;
};

}  // namespace pacml::plugin
