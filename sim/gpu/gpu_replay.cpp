#include "sim/gpu/gpu_replay.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <tuple>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/gpu/gpu_cluster.h"

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

GpuPolicy GpuPolicy::parse(const std::string& text, const std::string& where) {
  GpuPolicy p{Kind::kRequested, 0, text};
  if (text == "requested") return p;
  if (text == "min_feasible") return p.kind = Kind::kMinFeasible, p;
  if (text == "para_max") return p.kind = Kind::kParaMax, p;
  if (text == "random") return p.kind = Kind::kRandom, p;
  if (text.rfind("fixed:", 0) == 0) {
    p.kind = Kind::kFixed;
    p.fixed = static_cast<int>(parse_integer(text.substr(6), 1, 1 << 20, where, "fixed GPU count"));
    return p;
  }
  throw InputError(where, "unknown GPU policy '" + text +
                              "'; known: requested, min_feasible, para_max, fixed:K, random");
}

// ---- durations ----------------------------------------------------------------

DurationModel::DurationModel(std::shared_ptr<const PhysicalEstimator> estimator)
    : estimator_(std::move(estimator)) {}

DurationModel::Entry& DurationModel::entry(const ParallelJob& job) {
  for (auto& [key, e] : entries_)
    if (key == job.key()) return e;
  entries_.emplace_back(job.key(), Entry{std::vector<double>(cluster_gpus() + 1, NAN), NAN});
  return entries_.back().second;
}

double DurationModel::step_time(const ParallelJob& job, int gpus) {
  Entry& e = entry(job);
  if (gpus < 1 || gpus > cluster_gpus()) return INFINITY;
  if (std::isnan(e.steps[gpus])) {
    const ParallelPlan plan = estimator_->plan(job, gpus, Strategy::kAuto);
    e.steps[gpus] = plan.ok() ? plan.step_time : INFINITY;
  }
  return e.steps[gpus];
}

double DurationModel::fastest(const GpuJob& job) {
  Entry& e = entry(*job.work);
  if (std::isnan(e.fastest_step)) {
    e.fastest_step = INFINITY;
    for (int k = 1; k <= cluster_gpus(); ++k)
      e.fastest_step = std::min(e.fastest_step, step_time(*job.work, k));
  }
  return job.iterations * e.fastest_step;
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
  const int free = cluster_.free_gpus();
  auto startable = [&](int k) { return cluster_.find(k).has_value(); };
  auto finite = [&](int k) { return std::isfinite(durations_.seconds(job, k)); };
  switch (config_.policy.kind) {
    case GpuPolicy::Kind::kRequested:
      return startable(job.requested) && finite(job.requested) ? job.requested : 0;
    case GpuPolicy::Kind::kFixed:
      return startable(config_.policy.fixed) && finite(config_.policy.fixed) ? config_.policy.fixed
                                                                             : 0;
    case GpuPolicy::Kind::kMinFeasible:
      for (int k = 1; k <= free; ++k)
        if (now_ + durations_.seconds(job, k) <= job.deadline && startable(k)) return k;
      return 0;
    case GpuPolicy::Kind::kParaMax: {
      int best = 0;
      for (int k = 1; k <= free; ++k)
        if (startable(k) &&
            durations_.seconds(job, k) < (best ? durations_.seconds(job, best) : INFINITY))
          best = k;
      return best;
    }
    case GpuPolicy::Kind::kRandom: {
      std::vector<int> options;
      for (int k = 1; k <= free; ++k)
        if (startable(k) && finite(k)) options.push_back(k);
      return options.empty() ? 0 : options[rng_.below(options.size())];
    }
  }
  return 0;
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
  o.end = now_ + durations_.seconds(job, k);
  o.met = o.end <= job.deadline;
  completions_.push({o.end, j});
  return true;
}

void Replay::arrive(long j) {
  outcomes_[j].unservable = jobs_[j].submit + durations_.fastest(jobs_[j]) > jobs_[j].deadline;
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
    const bool expired = now_ + durations_.fastest(jobs_[j]) > jobs_[j].deadline;
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
  double gpu_seconds = 0, in_window = 0, delay = 0, gpus = 0;
  for (size_t j = 0; j < jobs_.size(); ++j) {
    const GpuJobOutcome& o = outcomes_[j];
    s.unservable += o.unservable;
    if (o.gpus == 0) continue;
    ++s.started;
    s.met += o.met;
    gpu_seconds += o.gpus * (o.end - o.start);
    in_window += o.gpus * std::max(0.0, std::min(o.end, last) - std::max(o.start, first));
    delay += o.start - jobs_[j].submit;
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
