#include "sim/gpu/gpu_replay.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <tuple>

#include "core/placement/gpu_placement.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::sim {

Admission parse_admission(const std::string& text, const std::string& where) {
  if (text == "immediate") return Admission::kImmediate;
  if (text == "queue") return Admission::kQueue;
  throw InputError(where, "admission must be 'immediate' or 'queue', got '" + text + "'");
}

const char* admission_name(Admission admission) {
  return admission == Admission::kImmediate ? "immediate" : "queue";
}

QueueOrder parse_queue_order(const std::string& text, const std::string& where) {
  if (text == "edf" || text == "deadline") return QueueOrder::kEarliestDeadline;
  if (text == "fifo" || text == "submission") return QueueOrder::kSubmission;
  throw InputError(where, "queue order must be 'edf' or 'fifo', got '" + text + "'");
}

// ---- the replay -----------------------------------------------------------------

namespace {

class Replay {
 public:
  Replay(const std::vector<GpuJob>& jobs, DurationModel& durations, const GpuReplayConfig& config,
         const ClusterSpec& cluster)
      : jobs_(jobs),
        durations_(durations),
        config_(config),
        cluster_(cluster),
        outcomes_(jobs.size()),
        rng_(config.seed) {}

  GpuReplayResult run();

 private:
  using Completion = std::pair<double, long>;  // (end, job)
  int choose(const GpuJob& job);
  bool try_start(long j);
  void arrive(long j);
  void schedule_queue();
  GpuReplayStats summarise() const;

  const std::vector<GpuJob>& jobs_;
  DurationModel& durations_;
  GpuReplayConfig config_;
  GpuClusterState cluster_;
  std::vector<GpuJobOutcome> outcomes_;
  std::vector<GpuAllocation> held_;
  // Waiting jobs in the order they are tried: (deadline, submission, index)
  // for earliest-deadline-first, (0, submission, index) in submission order.
  std::set<std::tuple<double, double, long>> waiting_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<Completion>> completions_;
  Rng rng_;
  double now_ = 0;
};

// The policy's GPU count for `job` now, or 0 if it would not start it now.
int Replay::choose(const GpuJob& job) {
  GpuDecisionInput input;
  input.now = now_;
  input.deadline = job.deadline;
  input.requested = job.requested;
  input.free_gpus = cluster_.free_gpus();
  input.startable = [&](int k) { return cluster_.find(k).has_value(); };
  input.seconds = [&](int k) { return run_seconds(durations_, job, k); };
  return choose_gpus(config_.policy, input, rng_);
}

bool Replay::try_start(long j) {
  const GpuJob& job = jobs_[j];
  const int k = choose(job);
  if (k == 0) return false;
  const GpuAllocation allocation = *cluster_.find(k);
  cluster_.take(allocation);
  held_[j] = allocation;
  GpuJobOutcome& o = outcomes_[j];
  o.gpus = k;
  o.start = now_;
  o.end = now_ + run_seconds(durations_, job, k);
  o.met = o.end <= job.deadline;
  completions_.push({o.end, j});
  return true;
}

void Replay::arrive(long j) {
  outcomes_[j].unservable =
      jobs_[j].submit + fastest_seconds(durations_, jobs_[j]) > jobs_[j].deadline;
  if (config_.admission == Admission::kImmediate) {
    try_start(j);
    return;
  }
  const bool edf = config_.order == QueueOrder::kEarliestDeadline;
  waiting_.emplace(edf ? jobs_[j].deadline : 0.0, jobs_[j].submit, j);
  schedule_queue();
}

// Every waiting job in order: dropped once no GPU count could still meet its
// deadline, started if the policy starts it now, else left waiting.
void Replay::schedule_queue() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const long j = std::get<2>(*it);
    const bool expired = now_ + fastest_seconds(durations_, jobs_[j]) > jobs_[j].deadline;
    if (expired || (cluster_.free_gpus() > 0 && try_start(j)))
      it = waiting_.erase(it);
    else
      ++it;
  }
}

GpuReplayResult Replay::run() {
  held_.assign(jobs_.size(), {});
  long next = 0;
  const long n = static_cast<long>(jobs_.size());
  while (next < n || !completions_.empty()) {
    const double arrival = next < n ? jobs_[next].submit : INFINITY;
    if (!completions_.empty() && completions_.top().first <= arrival) {
      now_ = completions_.top().first;
      while (!completions_.empty() && completions_.top().first <= now_) {
        cluster_.release(held_[completions_.top().second]);
        completions_.pop();
      }
      if (config_.admission == Admission::kQueue) schedule_queue();
    } else {
      now_ = arrival;
      arrive(next++);
    }
  }
  return {summarise(), outcomes_};
}

GpuReplayStats Replay::summarise() const {
  GpuReplayStats s;
  s.policy = config_.policy.name;
  s.admission = admission_name(config_.admission);
  s.arrived = static_cast<long>(jobs_.size());
  if (jobs_.empty()) return s;
  // Utilisation is measured while jobs arrive, [first, last arrival]: the
  // drain after the last arrival (a few long jobs) would dilute it.
  const double first = jobs_.front().submit, last = jobs_.back().submit;
  double gpu_seconds = 0, in_window = 0, delay = 0, jct = 0, gpus = 0;
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const GpuJobOutcome& o = outcomes_[j];
    s.unservable += o.unservable;
    if (o.gpus == 0) continue;
    ++s.started;
    s.met += o.met;
    gpu_seconds += o.gpus * (o.end - o.start);
    in_window += o.gpus * std::max(0.0, std::min(o.end, last) - std::max(o.start, first));
    delay += o.start - jobs_[j].submit;
    jct += o.end - jobs_[j].submit;
    gpus += o.gpus;
  }
  const double arrived = static_cast<double>(s.arrived);
  s.deadline_met_rate = s.met / arrived;
  s.blocking_rate = (s.arrived - s.started) / arrived;
  s.unservable_rate = s.unservable / arrived;
  s.gpu_hours = gpu_seconds / 3600;
  s.gpu_hours_per_met = s.met ? s.gpu_hours / s.met : 0;
  s.utilisation = last > first ? in_window / (cluster_.num_gpus() * (last - first)) : 0;
  s.queue_delay_mean = s.started ? delay / s.started : 0;
  s.jct_mean = s.started ? jct / s.started : 0;
  s.mean_gpus = s.started ? gpus / s.started : 0;
  return s;
}

}  // namespace

GpuReplayResult replay_on_gpus(const std::vector<GpuJob>& jobs, DurationModel& durations,
                               const GpuReplayConfig& config) {
  for (size_t j = 1; j < jobs.size(); ++j)
    if (jobs[j].submit < jobs[j - 1].submit)
      throw InputError(jobs[j].source, "jobs must be in submission order");
  return Replay(jobs, durations, config, durations.cluster()).run();
}

}  // namespace pacml::sim
