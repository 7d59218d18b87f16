// Trace replay on a GPU cluster with the physical model (doc/PHYSICAL.md):
// each job is a model at its global batch running a number of iterations,
// with a deadline; a policy chooses how many GPUs it gets, once, when it
// starts (as Slurm decides a job once). Two admission modes:
//
//  immediate  the paper's rule: a job starts when it arrives or is blocked;
//  queue      as Slurm with pacml's queue mode: a job that cannot start now
//             waits; at every arrival and completion the waiting jobs are
//             reconsidered in submission or earliest-deadline order, the
//             policy choosing for the time left; a job leaves the queue,
//             missed, once no GPU count could meet its deadline even on an
//             empty cluster.
//
// A job meets its deadline when it ends by it. Durations are iterations ×
// the physical model's step time (or a measured table's) for the GPU count.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/gpu/policy.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/physical_estimator.h"

namespace pacml::gpu {

struct Job {
  std::string id, source;
  double submit = 0;
  double deadline = INFINITY;  // absolute seconds
  long iterations = 1;
  int requested = 1;  // GPUs the trace job asked for
  ParallelJobPtr work;
};

enum class Admission { kImmediate, kQueue };
Admission parse_admission(const std::string& text, const std::string& where);
const char* admission_name(Admission admission);
// The modes an experiment, a replay or a workload run is asked for:
// "immediate", "queue" or "both" (immediate, then queue); and back to that text.
std::vector<Admission> parse_admissions(const std::string& text, const std::string& where);
std::string admissions_name(const std::vector<Admission>& admissions);

enum class QueueOrder { kSubmission, kEarliestDeadline };
QueueOrder parse_queue_order(const std::string& text, const std::string& where);

// Run times on the cluster, the way policies see them.
inline double run_seconds(DurationModel& durations, const Job& job, int gpus) {
  return durations.seconds(*job.work, job.iterations, gpus);
}
inline double fastest_seconds(DurationModel& durations, const Job& job) {
  return durations.fastest(*job.work, job.iterations);
}

// When a waiting job's GPU count is decided (doc/SLURM.md §10). kAtStart:
// by the policy for the time left when it starts. kAtSubmission: as
// job_submit/pacml with on_block: queue does, once at submission: the
// policy's count on an empty cluster, which must meet the deadline (else the
// job is turned away); the job then waits for exactly that many GPUs and
// leaves, missed, once they could no longer end by its deadline.
enum class DecisionTime { kAtStart, kAtSubmission };
DecisionTime parse_decision_time(const std::string& text, const std::string& where);

// Seconds a job runs on k GPUs, when the replay's world is not the model's.
using RunSeconds = std::function<double(const Job& job, int gpus)>;

struct ReplayConfig {
  Policy policy;
  Admission admission = Admission::kQueue;
  QueueOrder order = QueueOrder::kEarliestDeadline;
  DecisionTime decide = DecisionTime::kAtStart;  // queue admission only
  std::uint64_t seed = 1;
  // A world whose run times differ from the model's (sim/history): when set,
  // `predicted` is what the policy and the queue see, and `actual` how long
  // a started job runs (called once per start). Empty: the model's seconds.
  RunSeconds predicted, actual;
};

struct JobOutcome {
  int gpus = 0;  // 0: never started
  double start = NAN, end = NAN;
  bool met = false, unservable = false;
  bool turned_away = false;  // the policy would not run it (kTurnAway)
};

struct ReplayStats {
  std::string policy, admission;
  long arrived = 0, started = 0, met = 0, unservable = 0;
  double deadline_met_rate = 0;  // met / arrived
  double blocking_rate = 0;      // never started / arrived
  double unservable_rate = 0;    // no GPU count meets the deadline even on an empty cluster
  // The other misses, shares of the jobs that arrived (with met and
  // unservable they add up to 1): what a policy could change.
  double turned_away_rate = 0;  // servable, the policy would not run it
  double no_start_rate = 0;     // servable, never started otherwise (no room; expired waiting)
  double late_rate = 0;         // servable, started, ended after its deadline
  double gpu_hours = 0;         // GPU-hours of the jobs started
  double gpu_hours_per_met = 0;
  double utilisation = 0;       // GPU-seconds used while jobs arrive / (GPUs × that time)
  double queue_delay_mean = 0;  // seconds from submission to start, jobs started
  double jct_mean = 0;          // seconds from submission to end, jobs started
  double mean_gpus = 0;         // GPUs per started job
};

struct ReplayResult {
  ReplayStats stats;
  std::vector<JobOutcome> jobs;  // in the order of the input
};

// The next job in submission order into `job`, or false when there are no
// more. A source lets a replay hold only its running and waiting jobs, so a
// million-job replay takes the memory of the busiest moment, not of the run.
using JobSource = std::function<bool(Job& job)>;
// Told each job's outcome once it is final (ended, blocked, or dropped from
// the queue), with the job's position in the source.
using OutcomeSink = std::function<void(long index, const JobOutcome& outcome)>;

// Replays the source's jobs on the estimator's cluster; the statistics are
// kept as running sums. Throws InputError for a job out of submission order.
ReplayStats replay_stream(const JobSource& source, DurationModel& durations,
                          const ReplayConfig& config, const OutcomeSink& sink = {});

// Replays `jobs` (sorted by submission) and keeps every job's outcome.
ReplayResult replay_on_gpus(const std::vector<Job>& jobs, DurationModel& durations,
                            const ReplayConfig& config);

namespace detail {
class Replay;
}

// A replay of jobs [0, end) (sorted by submission) that advances one event
// at a time (an arrival, or the completions at one time and then the
// queue) and can be forked between events: the fork carries on from the
// same state with a policy, a last job and an outcome sink of its own. The
// rollout search (hindsight_search.h) forks the replay it is making at each
// decision instead of replaying the trace so far. Stepped to its end a
// cursor makes the same decisions and outcomes as replay_stream.
class ReplayCursor {
 public:
  ReplayCursor(const std::vector<Job>& jobs, size_t end, DurationModel& durations,
               const ReplayConfig& config, OutcomeSink sink = {});
  // A fork of `from` (its RNG included) that decides with `policy` and
  // replays the jobs before `end` only (those that have arrived stay).
  ReplayCursor(const ReplayCursor& from, const Policy& policy, size_t end, OutcomeSink sink);
  ReplayCursor(ReplayCursor&&) noexcept;
  ~ReplayCursor();

  // Whether the next event is an arrival (else a completion, or none left).
  bool next_is_arrival() const;
  long arrived() const;            // jobs arrived so far
  double next_event_time() const;  // infinite when none is left
  bool step();                     // one event; false when none is left
  // The remaining events, then the jobs still waiting leave (missed).
  ReplayStats run_to_end();

 private:
  struct Feed {
    const std::vector<Job>* jobs;
    size_t next, end;
  };
  JobSource source();
  std::unique_ptr<Feed> feed_;
  std::unique_ptr<detail::Replay> replay_;
};

}  // namespace pacml::gpu
