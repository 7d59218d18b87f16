#include "sim/gpu/replay.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/gpu/placement.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::gpu {

Admission parse_admission(const std::string& text, const std::string& where) {
  if (text == "immediate") return Admission::kImmediate;
  if (text == "queue") return Admission::kQueue;
  throw InputError(where, "admission must be 'immediate' or 'queue', got '" + text + "'");
}

const char* admission_name(Admission admission) {
  return admission == Admission::kImmediate ? "immediate" : "queue";
}

std::vector<Admission> parse_admissions(const std::string& text, const std::string& where) {
  if (text == "both") return {Admission::kImmediate, Admission::kQueue};
  return {parse_admission(text, where)};
}

std::string admissions_name(const std::vector<Admission>& admissions) {
  if (admissions.size() == 2) return "both";
  return admissions.empty() ? "" : admission_name(admissions.front());
}

QueueOrder parse_queue_order(const std::string& text, const std::string& where) {
  if (text == "edf" || text == "deadline") return QueueOrder::kEarliestDeadline;
  if (text == "fifo" || text == "submission") return QueueOrder::kSubmission;
  throw InputError(where, "queue order must be 'edf' or 'fifo', got '" + text + "'");
}

DecisionTime parse_decision_time(const std::string& text, const std::string& where) {
  if (text == "start") return DecisionTime::kAtStart;
  if (text == "submission") return DecisionTime::kAtSubmission;
  throw InputError(where, "GPU decision must be 'start' or 'submission', got '" + text + "'");
}

// ---- the replay -----------------------------------------------------------------

namespace {

constexpr double kOfferedWindow = 24 * 3600.0;  // the "recent" of DecisionInput::recent_load

// Running sums of the statistics, added to as each job's outcome is final.
class StatsAccumulator {
 public:
  void arrive(double submit) {
    if (arrived_ == 0) first_ = submit;
    last_ = submit;
    ++arrived_;
  }
  // `window_end`: the last arrival, or (while jobs still arrive) any time
  // after the job's end; utilisation counts GPU time in [first, last arrival].
  void add(const Job& job, const JobOutcome& o, double window_end);
  ReplayStats stats(const ReplayConfig& config, int cluster_gpus) const;
  double last_arrival() const { return last_; }

 private:
  long arrived_ = 0, started_ = 0, met_ = 0, unservable_ = 0;
  long turned_away_ = 0, no_start_ = 0, late_ = 0;  // the servable jobs' misses
  double first_ = 0, last_ = 0;
  double gpu_seconds_ = 0, in_window_ = 0, delay_ = 0, jct_ = 0, gpus_ = 0;
};

void StatsAccumulator::add(const Job& job, const JobOutcome& o, double window_end) {
  unservable_ += o.unservable;
  if (!o.unservable && !o.met) {
    if (o.gpus > 0)
      ++late_;
    else if (o.turned_away)
      ++turned_away_;
    else
      ++no_start_;
  }
  if (o.gpus == 0) return;
  ++started_;
  met_ += o.met;
  gpu_seconds_ += o.gpus * (o.end - o.start);
  in_window_ += o.gpus * std::max(0.0, std::min(o.end, window_end) - std::max(o.start, first_));
  delay_ += o.start - job.submit;
  jct_ += o.end - job.submit;
  gpus_ += o.gpus;
}

ReplayStats StatsAccumulator::stats(const ReplayConfig& config, int cluster_gpus) const {
  ReplayStats s;
  s.policy = config.policy.name;
  s.admission = admission_name(config.admission);
  s.arrived = arrived_;
  s.started = started_;
  s.met = met_;
  s.unservable = unservable_;
  if (arrived_ == 0) return s;
  const double arrived = static_cast<double>(arrived_);
  s.deadline_met_rate = met_ / arrived;
  s.blocking_rate = (arrived_ - started_) / arrived;
  s.unservable_rate = unservable_ / arrived;
  s.turned_away_rate = turned_away_ / arrived;
  s.no_start_rate = no_start_ / arrived;
  s.late_rate = late_ / arrived;
  s.gpu_hours = gpu_seconds_ / 3600;
  s.gpu_hours_per_met = met_ ? s.gpu_hours / met_ : 0;
  // Measured while jobs arrive: the drain after the last arrival (a few
  // long jobs) would dilute it.
  s.utilisation = last_ > first_ ? in_window_ / (cluster_gpus * (last_ - first_)) : 0;
  s.queue_delay_mean = started_ ? delay_ / started_ : 0;
  s.jct_mean = started_ ? jct_ / started_ : 0;
  s.mean_gpus = started_ ? gpus_ / started_ : 0;
  return s;
}

}  // namespace

namespace detail {

// One replay's state; ReplayCursor (replay.h) steps it and copies it.
class Replay {
 public:
  Replay(JobSource source, DurationModel& durations, const ReplayConfig& config, OutcomeSink sink)
      : source_(std::move(source)),
        durations_(durations),
        config_(config),
        sink_(std::move(sink)),
        cluster_(durations.cluster()),
        rng_(config.seed) {}
  // The same state carrying on with its own source, sink and policy.
  Replay(const Replay& from, JobSource source, OutcomeSink sink, const Policy& policy)
      : Replay(from) {
    source_ = std::move(source);
    sink_ = std::move(sink);
    config_.policy = policy;
  }

  void begin() { fetch_next(); }
  // One event: an arrival, or the completions at one time and then the
  // queue. False when nothing is left to happen.
  bool step();
  // Jobs still waiting when nothing runs and nothing arrives never start.
  void drain();
  ReplayStats stats() const { return stats_.stats(config_, cluster_.num_gpus()); }
  ReplayStats run();
  bool next_is_arrival() const {
    return has_next_ && (completions_.empty() || completions_.top().first > next_.submit);
  }
  long arrived() const { return next_index_; }
  double next_event_time() const {
    return std::min(has_next_ ? next_.submit : INFINITY,
                    completions_.empty() ? INFINITY : completions_.top().first);
  }
  // Forgets the job fetched to arrive next: the source's jobs end before it.
  void drop_next() { has_next_ = false; }

 private:
  Replay(const Replay&) = default;

  // A job that has arrived and whose outcome is not final yet.
  struct Live {
    Job job;
    JobOutcome outcome;
    Allocation held;
    int fixed_gpus = 0;        // DecisionTime::kAtSubmission: the count it waits for
    bool turned_away = false;  // the policy will not run it (kTurnAway)
  };
  using Completion = std::pair<double, long>;  // (end, job)
  bool fetch_next();
  void next_event();
  int choose(const Job& job);
  double predicted(const Job& job, int k) {
    return config_.predicted ? config_.predicted(job, k) : run_seconds(durations_, job, k);
  }
  double predicted_fastest(const Job& job);
  DecisionInput decision_input(const Job& job, int free_gpus);
  void add_context(const Job& job, DecisionInput& input);
  void count_offered(const Job& job);
  int choose_on_empty_cluster(const Job& job);
  bool try_start(long j);
  void start(long j, int k);
  bool wait_for_fixed_count(long j);
  void arrive();
  bool startable(int k);
  bool settle(long j);
  void schedule_queue();
  void finish(long j);

  JobSource source_;
  DurationModel& durations_;
  ReplayConfig config_;
  OutcomeSink sink_;
  ClusterState cluster_;
  std::unordered_map<long, Live> live_;
  Job next_;  // the next arrival, when has_next_
  bool has_next_ = false;
  long next_index_ = 0;
  // Waiting jobs in the order they are tried: (deadline, submission, index)
  // for earliest-deadline-first, (0, submission, index) in submission order.
  std::set<std::tuple<double, double, long>> waiting_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<Completion>> completions_;
  // Whether k GPUs can be placed, remembered until the free GPUs change
  // (placement_version_): after a completion every waiting job asks again.
  std::vector<std::pair<unsigned, bool>> startable_memo_;
  unsigned placement_version_ = 1;
  // What a learned policy reads besides the job (add_context): GPUs asked
  // for by the waiting jobs, and the last day's submissions as
  // (submit, GPU-seconds on the requested count) with their sum.
  double queued_gpus_ = 0;
  std::deque<std::pair<double, double>> offered_;
  double offered_sum_ = 0;
  StatsAccumulator stats_;
  Rng rng_;
  double now_ = 0;
};

bool Replay::fetch_next() {
  const double previous = has_next_ ? next_.submit : -INFINITY;
  has_next_ = source_(next_);
  if (has_next_ && next_.submit < previous)
    throw InputError(next_.source, "jobs must be in submission order");
  return has_next_;
}

// The policy's GPU count for `job` now, or 0 if it would not start it now.
int Replay::choose(const Job& job) {
  DecisionInput input = decision_input(job, cluster_.free_gpus());
  input.startable = [&](int k) { return startable(k); };
  return choose_gpus(config_.policy, input, rng_);
}

// What a policy sees of `job` now with `free_gpus` free; the caller says
// which counts can start.
DecisionInput Replay::decision_input(const Job& job, int free_gpus) {
  DecisionInput input;
  input.now = now_;
  input.deadline = job.deadline;
  input.requested = job.requested;
  input.free_gpus = free_gpus;
  input.seconds = [this, &job](int k) { return predicted(job, k); };
  input.cluster_gpus = cluster_.num_gpus();
  if (config_.policy.kind == Policy::Kind::kChooser) add_context(job, input);
  return input;
}

// The shortest predicted run: the model's, or with a world of its own the
// shortest over every GPU count, as DurationModel::fastest takes it.
double Replay::predicted_fastest(const Job& job) {
  if (!config_.predicted) return fastest_seconds(durations_, job);
  double best = INFINITY;
  for (int k = 1; k <= durations_.cluster_gpus(); ++k) best = std::min(best, predicted(job, k));
  return best;
}

// Only a learned policy reads these, and counting free servers costs a pass
// over the cluster, so rule policies skip it.
void Replay::add_context(const Job& job, DecisionInput& input) {
  input.job = job.work.get();
  input.traits = [this, &job](int k) { return durations_.traits(*job.work, k); };
  input.cluster_gpus = cluster_.num_gpus();
  input.gpus_per_server = cluster_.gpus_per_server();
  input.free_servers = cluster_.free_servers();
  input.queued_jobs = static_cast<int>(waiting_.size());
  input.queued_gpus = queued_gpus_;
  input.recent_load = offered_sum_ / (kOfferedWindow * cluster_.num_gpus());
  input.queue_admission = config_.admission == Admission::kQueue;
}

// Keeps the offered load of the last kOfferedWindow seconds up to date.
void Replay::count_offered(const Job& job) {
  const int k = std::min(std::max(job.requested, 1), cluster_.num_gpus());
  const double seconds = predicted(job, k);
  if (std::isfinite(seconds)) {
    offered_.emplace_back(job.submit, k * seconds);
    offered_sum_ += k * seconds;
  }
  while (!offered_.empty() && offered_.front().first < job.submit - kOfferedWindow) {
    offered_sum_ -= offered_.front().second;
    offered_.pop_front();
  }
}

inline bool Replay::startable(int k) {
  if (startable_memo_.empty()) startable_memo_.assign(cluster_.num_gpus() + 1, {0, false});
  if (k < 1 || k > cluster_.num_gpus()) return false;
  auto& [version, placeable] = startable_memo_[k];
  if (version != placement_version_) version = placement_version_, placeable = cluster_.fits(k);
  return placeable;
}

// The policy's count on an empty cluster if it meets the deadline, else 0:
// what job_submit/pacml queues a job with (plugin/engine.cpp, gpus_meeting).
int Replay::choose_on_empty_cluster(const Job& job) {
  DecisionInput input = decision_input(job, cluster_.num_gpus());
  input.startable = [&](int k) { return k >= 1 && k <= cluster_.num_gpus(); };
  const int k = choose_gpus(config_.policy, input, rng_);
  return k > 0 && now_ + input.seconds(k) <= job.deadline ? k : 0;
}

bool Replay::try_start(long j) {
  Live& live = live_.at(j);
  const int k =
      live.fixed_gpus ? (cluster_.fits(live.fixed_gpus) ? live.fixed_gpus : 0) : choose(live.job);
  if (k == kTurnAway) live.turned_away = true;
  if (k <= 0) return false;
  start(j, k);
  return true;
}

void Replay::start(long j, int k) {
  Live& live = live_.at(j);
  live.held = *cluster_.find(k);
  cluster_.take(live.held);
  ++placement_version_;
  JobOutcome& o = live.outcome;
  o.gpus = k;
  o.start = now_;
  o.end =
      now_ + (config_.actual ? config_.actual(live.job, k) : run_seconds(durations_, live.job, k));
  o.met = o.end <= live.job.deadline;
  completions_.push({o.end, j});
}

// kAtSubmission, for a job that cannot start now: fix its count, or turn it
// away (finished, never started) when no count the policy picks on an empty
// cluster meets the deadline. True if it left.
bool Replay::wait_for_fixed_count(long j) {
  Live& live = live_.at(j);
  live.fixed_gpus = choose_on_empty_cluster(live.job);
  if (live.fixed_gpus > 0) return false;
  finish(j);
  return true;
}

// The job's outcome is final: into the statistics and the sink, then forgotten.
void Replay::finish(long j) {
  auto it = live_.find(j);
  // While jobs still arrive, the next arrival bounds the utilisation window
  // from below, and every final outcome has ended by now.
  const double window_end = has_next_ ? INFINITY : stats_.last_arrival();
  it->second.outcome.turned_away = it->second.turned_away && it->second.outcome.gpus == 0;
  stats_.add(it->second.job, it->second.outcome, window_end);
  if (sink_) sink_(j, it->second.outcome);
  live_.erase(it);
}

void Replay::arrive() {
  const long j = next_index_++;
  Live& live = live_[j];
  live.job = std::move(next_);
  stats_.arrive(live.job.submit);
  if (config_.policy.kind == Policy::Kind::kChooser) count_offered(live.job);
  live.outcome.unservable = live.job.submit + predicted_fastest(live.job) > live.job.deadline;
  const double deadline = live.job.deadline, submit = live.job.submit;
  fetch_next();
  if (config_.admission == Admission::kImmediate) {
    if (!try_start(j)) finish(j);
    return;
  }
  const bool edf = config_.order == QueueOrder::kEarliestDeadline;
  // Only the newcomer is tried: every other waiting job failed to start at
  // the last event, with these GPUs free or more (an arrival only takes GPUs)
  // and no later (time only tightens deadlines), so it would fail again.
  // Those that expired meanwhile leave at the next completion, as missed.
  const int requested = live.job.requested;
  const auto it = waiting_.emplace(edf ? deadline : 0.0, submit, j).first;
  queued_gpus_ += requested;
  if (settle(j) || (config_.decide == DecisionTime::kAtSubmission && wait_for_fixed_count(j))) {
    queued_gpus_ -= requested;
    waiting_.erase(it);
  }
}

// A waiting job leaves the queue, missed, once no GPU count could still meet
// its deadline (with a fixed count: once that count could not, as Slurm's
// deadline drops a pending job), or started if the policy starts it now.
// True if it left.
bool Replay::settle(long j) {
  const Live& live = live_.at(j);
  const Job& job = live.job;
  const double fastest = live.fixed_gpus ? predicted(job, live.fixed_gpus) : predicted_fastest(job);
  if (now_ + fastest > job.deadline) {
    finish(j);
    return true;
  }
  if (cluster_.free_gpus() > 0 && try_start(j)) return true;
  if (!live.turned_away) return false;
  finish(j);  // never started: missed
  return true;
}

// Every waiting job, in order (after a completion freed GPUs).
void Replay::schedule_queue() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const long j = std::get<2>(*it);
    const int requested = live_.at(j).job.requested;
    if (settle(j)) {
      queued_gpus_ -= requested;
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

// The next arrival, or the completions at the next end and then the queue.
inline void Replay::next_event() {
  const double arrival = has_next_ ? next_.submit : INFINITY;
  if (!completions_.empty() && completions_.top().first <= arrival) {
    now_ = completions_.top().first;
    while (!completions_.empty() && completions_.top().first <= now_) {
      const long j = completions_.top().second;
      completions_.pop();
      cluster_.release(live_.at(j).held);
      ++placement_version_;
      finish(j);
    }
    if (config_.admission == Admission::kQueue) schedule_queue();
  } else {
    now_ = arrival;
    arrive();
  }
}

bool Replay::step() {
  if (!has_next_ && completions_.empty()) return false;
  next_event();
  return true;
}

void Replay::drain() {
  while (!waiting_.empty()) {
    const long j = std::get<2>(*waiting_.begin());
    waiting_.erase(waiting_.begin());
    finish(j);
  }
}

ReplayStats Replay::run() {
  begin();
  while (has_next_ || !completions_.empty()) next_event();
  drain();
  return stats();
}

}  // namespace detail

ReplayStats replay_stream(const JobSource& source, DurationModel& durations,
                          const ReplayConfig& config, const OutcomeSink& sink) {
  return detail::Replay(source, durations, config, sink).run();
}

// ---- the cursor ------------------------------------------------------------------

ReplayCursor::ReplayCursor(const std::vector<Job>& jobs, size_t end, DurationModel& durations,
                           const ReplayConfig& config, OutcomeSink sink)
    : feed_(std::make_unique<Feed>(Feed{&jobs, 0, std::min(end, jobs.size())})),
      replay_(std::make_unique<detail::Replay>(source(), durations, config, std::move(sink))) {
  replay_->begin();
}

ReplayCursor::ReplayCursor(const ReplayCursor& from, const Policy& policy, size_t end,
                           OutcomeSink sink)
    : feed_(std::make_unique<Feed>(
          Feed{from.feed_->jobs, from.feed_->next,
               std::max(from.feed_->next, std::min(end, from.feed_->jobs->size()))})),
      replay_(std::make_unique<detail::Replay>(*from.replay_, source(), std::move(sink), policy)) {
  if (replay_->arrived() >= static_cast<long>(std::min(end, feed_->jobs->size())))
    replay_->drop_next();
}

ReplayCursor::ReplayCursor(ReplayCursor&&) noexcept = default;
ReplayCursor::~ReplayCursor() = default;

JobSource ReplayCursor::source() {
  Feed* feed = feed_.get();  // owned by this cursor, where it stays when the cursor moves
  return [feed](Job& job) {
    if (feed->next >= feed->end) return false;
    job = (*feed->jobs)[feed->next++];
    return true;
  };
}

bool ReplayCursor::next_is_arrival() const {
  return replay_->next_is_arrival();
}
long ReplayCursor::arrived() const {
  return replay_->arrived();
}
double ReplayCursor::next_event_time() const {
  return replay_->next_event_time();
}
bool ReplayCursor::step() {
  return replay_->step();
}

ReplayStats ReplayCursor::run_to_end() {
  while (replay_->step()) {
  }
  replay_->drain();
  return replay_->stats();
}

ReplayResult replay_on_gpus(const std::vector<Job>& jobs, DurationModel& durations,
                            const ReplayConfig& config) {
  size_t next = 0;
  const JobSource source = [&](Job& job) {
    if (next == jobs.size()) return false;
    job = jobs[next++];
    return true;
  };
  ReplayResult result;
  result.jobs.resize(jobs.size());
  result.stats = replay_stream(source, durations, config,
                               [&](long j, const JobOutcome& o) { result.jobs[j] = o; });
  return result;
}

}  // namespace pacml::gpu
