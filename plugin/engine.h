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
//   6. accepted → exact node list, node count, exclusive, an annotation and
//      a time limit that never ends the job early (plugin/README.md, "Time
//      limits"); blocked → reject with a message, or queue at the degree the
//      policy picks on the idle cluster.
// Steps 1 and 2 and the choice of partition and nodes are the engine's
// (engine.cpp, decision.h); the rest is the RAMP pipeline (ramp_decision.h)
// or, with a cluster file or the physical profile, the GPU pipeline
// (gpu_decision.h), each a function per step around a Decision (the state of
// one submission). What users and admins read is worded in messages.h.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel/parallel_job.h"
#include "plugin/config.h"
#include "plugin/decision_log.h"
#include "plugin/engine_state.h"
#include "plugin/gpu_plan.h"
#include "plugin/graph_source.h"

namespace pacml::plugin {

struct ActiveConfig;  // active_config.h

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
  // GPUs of a node from its GRES ("gpu:4"), and those allocated to jobs now;
  // 0 when it has none or it is not known. Only a GPU cluster asks.
  virtual int node_gpus(const std::string& node) const {
    (void)node;
    return 0;
  }
  virtual int node_gpus_used(const std::string& node) const {
    (void)node;
    return 0;
  }
  // Whether the partition's limits (MaxTime) are known: false in
  // slurmctld's first seconds, before the background thread has read them.
  virtual bool partition_limits_known(const std::string& partition) const {
    (void)partition;
    return true;
  }
  // Whether slurmctld has just started and its nodes are still registering
  // (UNKNOWN): nodes then look unavailable that are not.
  virtual bool nodes_registering() const { return false; }
  // The partition's MaxTime in minutes; nullopt when unlimited or unknown.
  virtual std::optional<std::uint32_t> partition_max_minutes(const std::string& partition) const {
    (void)partition;
    return std::nullopt;
  }
};

// Slurm's partitions and nodes as the background thread read them, to check
// pacml.conf against (Engine::check_against_slurm).
struct SlurmCatalog {
  std::map<std::string, std::vector<std::string>> partitions;  // nodes in Slurm's order
  std::vector<std::string> nodes;                              // every node
  std::string default_partition;
};

struct SubmitInput {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<std::string> spank_env;  // "KEY=VALUE"
  std::string comment;
  std::string partition;                 // as requested; "" = default
  std::uint32_t time_limit_minutes = 0;  // --time; 0 = not given (or UNLIMITED)
  bool time_unlimited = false;           // --time=UNLIMITED: pacml never shortens it
  std::string work_dir;
  std::string job_name;
  double now = 0;  // epoch seconds
  // What the user asked of Slurm, which a GPU-cluster decision honours or
  // refuses with a message (never silently replaces).
  int requested_gpus = 0;                   // --gpus or --gres=gpu:N; 0 = not given
  int min_nodes = 0, max_nodes = 0;         // -N MIN[-MAX]; 0 = not given
  std::vector<std::string> required_nodes;  // -w
  std::vector<std::string> excluded_nodes;  // --exclude
};

enum class Outcome { kPassThrough, kPlaced, kQueued, kRejected };
enum class RejectKind { kNone, kBadRequest, kBadTime, kBlocked, kUnmanagedPartition };
const char* outcome_name(Outcome outcome);

struct SubmitResult {
  Outcome outcome = Outcome::kPassThrough;
  RejectKind reject = RejectKind::kNone;
  std::string user_message;  // for err_msg (rejections)
  // Told to the user of an accepted or passed-through job (sbatch prints a
  // job_submit plugin's err_msg on success too); "" = nothing.
  std::string user_notice;
  std::string log_message;  // one slurmctld log line ("" = nothing to say)
  bool log_is_error = false;
  // The rewrite (placed / queued).
  int num_nodes = 0;
  std::vector<std::string> nodes;
  std::string partition;                 // set when the job named none
  std::uint32_t time_limit_minutes = 0;  // 0: keep the job's own (its --time or Slurm's default)
  std::string annotation;                // "pacml-decision:degree=…"
  // The request in --comment form ("pacml:model=gnmt,beta=0.45"), added to
  // the job's Comment when it came as --pacml-* options, so that squeue
  // --json and sacct (AccountingStoreFlags=job_comment) keep it for replays.
  std::string request_comment;
  bool annotate_admin_comment = true;
  // A GPU cluster: the request (gpus = 0 on a RAMP cluster), the plan's
  // PACML_* variables for the batch script, and Slurm's deadline for the job
  // (epoch seconds; 0 = none) so that Slurm drops it once it cannot finish.
  RequestShape shape;
  // Whether the nodes show their GPUs as GRES (gres/gpu); if not, as on a
  // cluster described by `topology` alone, each node is one GPU and whole
  // nodes are asked for without GRES.
  bool gres_gpus = true;
  std::vector<std::pair<std::string, std::string>> job_env;
  long slurm_deadline = 0;
  // With a deadline: the floor Slurm may lower the time limit to so the job
  // ends by its deadline (time_min, minutes; 0 = not set).
  std::uint32_t time_min_minutes = 0;
  std::string decision_id;
  double latency_ms = 0;
};

enum class LogLevel { kInfo, kWarning, kError, kDebug };
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
  // token is logged as an error naming it and ignored, and the other pacml_*
  // tokens apply. Thread-safe.
  void set_sched_params(const std::string& text);
  // The pacml.conf path in use: pacml_conf= if given, else the default.
  std::string config_path() const;
  bool has_config() const;
  // A copy of the active configuration (default-constructed if none).
  PluginConfig config() const;

  SubmitResult submit(const SubmitInput& input, const SlurmView& view);

  // Whether the configuration in force has not yet been checked against
  // Slurm's partitions and nodes. Thread-safe.
  bool needs_slurm_check() const;
  // Logs a warning for each partition or node pacml.conf names that Slurm
  // does not have, and for a RAMP shape whose size differs from the nodes it
  // maps; once per configuration. Returns the warnings. Thread-safe.
  std::vector<std::string> check_against_slurm(const SlurmCatalog& slurm);

  // Slurm shows job `job_id` of user `owner` carrying `decision_id` in its
  // AdminComment (or, with annotate: comment, its Comment): the decision's
  // log record gets the job id and, once the job has left PENDING (started,
  // ended or was cancelled), its servers are no longer held. Only for the
  // user the decision was made for: a decision id copied into another user's
  // job changes nothing. Thread-safe.
  void job_seen(const std::string& decision_id, std::uint32_t job_id, uid_t owner, bool pending);
  // Whether any decision's servers are still held at `now`; expired
  // reservations are dropped here. Thread-safe.
  bool holds_reservations(double now);
  // Whether the configuration in force decides GPU counts (a cluster file)
  // and whether it annotates jobs' Comment rather than AdminComment.
  bool in_gpu_world() const;
  bool annotates_comment() const;

  DecisionLog& decision_log() { return log_file_; }
  GraphSource& graphs() { return graphs_; }

 private:
  // One submission under the lock, with the configuration in force.
  SubmitResult decide(const SubmitInput& input, const SlurmView& view, ActiveConfig& active);
  void log(LogLevel level, const std::string& message) const;
  void log_once(LogLevel level, const std::string& message);

  std::string config_path_;  // the default path (next to slurm.conf)
  LogFn log_;
  std::string sched_text_;  // SchedulerParameters last seen
  SchedParams sched_;       // its last good pacml_* settings
  mutable std::mutex mutex_;
  std::unique_ptr<ActiveConfig> active_;
  std::string file_stamp_;        // mtime/size/inode of the config last read
  std::string correction_watch_;  // the correction file the last pacml.conf read names
  std::string last_logged_;       // suppresses repeats of the same config message
  GraphSource graphs_;
  DecisionLog log_file_;
  // Servers promised to recent decisions whose jobs have not started yet
  // (engine_state.h), and the offered GPU load of the last day.
  Reservations reservations_;
  OfferedLoad offered_;
  std::uint64_t counter_ = 0;             // the last decision id's serial number
  std::uint64_t config_generation_ = 0;   // bumped on every load
  std::uint64_t checked_generation_ = 0;  // the one check_against_slurm saw
};

}  // namespace pacml::plugin
