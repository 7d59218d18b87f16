#include "sim/engine/environment.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/partition/partitioned_graph.h"
#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/util/error.h"

namespace pacml::sim {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  Rng rng(seed ^ (0xD1B54A32D192ED03ULL * (stream + 1)));
  rng.next();
  return rng.next();
}

namespace {

class FutureStream : public JobStream {
 public:
  FutureStream(std::unique_ptr<JobStream> inner, double now)
      : inner_(std::move(inner)), now_(now) {}
  std::optional<JobSpec> next() override {
    if (!started_) {
      started_ = true;
      const std::optional<JobSpec> first = inner_->next();
      if (!first) return std::nullopt;
      origin_ = first->arrival;
    }
    std::optional<JobSpec> job = inner_->next();
    if (job) job->arrival = now_ + (job->arrival - origin_);
    return job;
  }

 private:
  std::unique_ptr<JobStream> inner_;
  double now_, origin_ = 0;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<JobStream> future_stream(std::unique_ptr<JobStream> stream, double now) {
  return std::make_unique<FutureStream>(std::move(stream), now);
}

const char* job_outcome_name(JobOutcome outcome) {
  switch (outcome) {
    case JobOutcome::kCompleted:
      return "completed";
    case JobOutcome::kRunningAtHorizon:
      return "running_at_horizon";
    case JobOutcome::kDeclined:
      return "declined";
    case JobOutcome::kNoPlacement:
      return "no_placement";
    case JobOutcome::kDeadline:
      return "deadline";
    case JobOutcome::kUndecided:
      return "undecided";
  }
  return "unknown";
}

bool is_blocked(JobOutcome outcome) {
  return outcome == JobOutcome::kRunningAtHorizon || outcome == JobOutcome::kDeclined ||
         outcome == JobOutcome::kNoPlacement || outcome == JobOutcome::kDeadline;
}

Environment::Environment(EnvironmentConfig config)
    : config_(std::move(config)),
      cluster_(config_.estimator ? config_.estimator->topology() : RampTopology(RampParams{})) {
  if (!config_.estimator) throw std::invalid_argument("Environment: no estimator");
  if (!config_.workload) throw std::invalid_argument("Environment: no workload");
  if (!(config_.horizon > 0)) throw InputError("horizon", "the horizon must be positive");
  const bool shareable = config_.estimator->profile().cache_scope == JctCacheScope::kShared;
  cache_ = shareable && config_.shared_cache ? config_.shared_cache.get() : &own_cache_;
  obs_.done = true;
  obs_.cluster = &cluster_;
}

double Environment::demand(const JobGraph& graph) {
  auto it = demand_.find(&graph);
  if (it != demand_.end()) return it->second;
  const PartitionedGraph whole(graph.step(), std::vector<int>(graph.layers().num_layers(), 1),
                               config_.estimator->profile().edge_sizes);
  const double value = whole.total_memory() + whole.total_dep_size();
  demand_.emplace(&graph, value);
  return value;
}

const Observation& Environment::reset(std::uint64_t seed) {
  wall_start_ = std::chrono::steady_clock::now();
  cluster_ = ClusterState(config_.estimator->topology());
  if (!config_.keep_cache_across_resets) own_cache_.clear();  // reference: one episode
  stream_ = config_.workload->start(derive_seed(seed, 1));
  policy_rng_ = Rng(derive_seed(seed, 2));
  pending_.reset();
  current_.reset();
  time_ = occupied_integral_ = 0;
  arrived_ = 0;
  current_index_ = -1;
  running_.clear();
  completions_ = {};
  result_ = EpisodeResult();
  result_.stats.seed = seed;
  result_.stats.policy = config_.policy_label;
  result_.stats.beta_dist = config_.workload->beta_label();
  obs_ = Observation();
  obs_.cluster = &cluster_;
  sample();
  advance();
  return obs_;
}

void Environment::set_time(double t) {
  if (t < time_) return;
  occupied_integral_ += cluster_.occupied_servers() * (t - time_);
  time_ = t;
}

void Environment::sample() {
  if (!config_.record_timeline) return;
  OccupancySample s{time_, cluster_.occupied_servers(), static_cast<int>(running_.size())};
  auto& timeline = result_.timeline;
  if (!timeline.empty() && timeline.back().time == s.time)
    timeline.back() = s;
  else
    timeline.push_back(s);
}

void Environment::complete_until(double t) {
  while (!completions_.empty() && completions_.top().first <= t) {
    const auto [end, id] = completions_.top();
    // All completions at one instant are applied before the timeline sample.
    set_time(end);
    completions_.pop();
    cluster_.release(id);
    running_.erase(id);
    if (completions_.empty() || completions_.top().first != end) sample();
  }
  set_time(t);
}

void Environment::arrive(JobSpec spec) {
  if (spec.arrival < time_)
    throw InputError(spec.source.empty() ? "workload" : spec.source,
                     "arrivals out of order (" + std::to_string(spec.arrival) + " after " +
                         std::to_string(time_) + ")");
  if (!spec.graph) throw std::logic_error("workload produced a job without a graph");
  JobRecord r;
  r.index = arrived_++;
  r.id = spec.id;
  r.model = spec.graph->name();
  r.source = spec.source;
  r.arrival = spec.arrival;
  r.beta = spec.beta;
  r.steps = spec.steps;
  r.jct_seq = config_.estimator->sequential_jct(*spec.graph) *
              (static_cast<double>(spec.steps) / config_.estimator->steps());
  r.jct_max = spec.beta * r.jct_seq;
  r.demand = demand(*spec.graph);
  result_.jobs.push_back(std::move(r));
}

void Environment::advance() {
  const double horizon = config_.horizon;
  for (;;) {
    if (!pending_) pending_ = stream_->next();
    if (pending_ && pending_->arrival < horizon) {
      JobSpec spec = std::move(*pending_);
      pending_.reset();
      complete_until(spec.arrival);
      arrive(spec);
      current_index_ = static_cast<long>(result_.jobs.size()) - 1;
      current_ = std::move(spec);
      obs_.job = &*current_;
      obs_.time = time_;
      obs_.mask = action_mask(cluster_, kMaxAction);
      obs_.sequential_jct = result_.jobs.back().jct_seq;
      obs_.done = false;
      return;
    }
    if (pending_ && pending_->arrival == horizon) {
      // Counted, never decided (doc/MODEL.md §7).
      JobSpec spec = std::move(*pending_);
      pending_.reset();
      complete_until(horizon);
      arrive(spec);
      continue;
    }
    break;  // exhausted or beyond the horizon
  }
  if (std::isfinite(horizon)) {
    if (!pending_) {
      // The workload ended before the horizon: stop when the last job finishes
      // (or at the horizon if some job is still running then).
      while (!completions_.empty() && completions_.top().first <= horizon)
        complete_until(completions_.top().first);
      if (running_.empty()) return finish(time_);
    }
    complete_until(horizon);
    finish(horizon);
  } else {
    while (!completions_.empty()) complete_until(completions_.top().first);
    finish(time_);
  }
}

void Environment::finish(double end_time) {
  current_.reset();
  obs_.job = nullptr;
  obs_.done = true;
  obs_.time = time_;
  obs_.mask.assign(kMaxAction + 1, false);
  obs_.mask[0] = true;
  EpisodeStats& s = result_.stats;
  s.end_time = end_time;
  std::vector<double> jcts;
  double speedups = 0, servers = 0, demand_done = 0;
  for (JobRecord& r : result_.jobs) {
    if (r.action >= 1 &&
        (r.outcome == JobOutcome::kCompleted || r.outcome == JobOutcome::kRunningAtHorizon)) {
      if (r.end > end_time) {
        r.outcome = JobOutcome::kRunningAtHorizon;
        r.done_fraction = r.jct > 0 ? std::clamp((end_time - r.start) / r.jct, 0.0, 1.0) : 1.0;
      } else {
        r.outcome = JobOutcome::kCompleted;
        r.done_fraction = 1.0;
      }
      demand_done += r.demand * r.done_fraction;
      ++s.accepted;
      jcts.push_back(r.jct);
      speedups += r.speedup;
      servers += r.servers;
    }
    switch (r.outcome) {
      case JobOutcome::kCompleted:
        ++s.completed;
        break;
      case JobOutcome::kRunningAtHorizon:
        ++s.running_at_horizon;
        break;
      case JobOutcome::kDeclined:
        ++s.declined;
        break;
      case JobOutcome::kNoPlacement:
        ++s.no_placement;
        break;
      case JobOutcome::kDeadline:
        ++s.deadline;
        break;
      case JobOutcome::kUndecided:
        ++s.undecided;
        break;
    }
  }
  s.arrived = static_cast<long>(result_.jobs.size());
  s.blocked = s.running_at_horizon + s.declined + s.no_placement + s.deadline;
  s.decisions = s.arrived - s.undecided;
  s.blocking_rate = s.arrived ? static_cast<double>(s.blocked) / s.arrived : 0;
  s.acceptance_rate = s.arrived ? static_cast<double>(s.completed) / s.arrived : 0;
  s.throughput = end_time > 0 ? demand_done / end_time : 0;
  s.gpu_hours = occupied_integral_ / 3600;
  s.mean_occupancy =
      end_time > 0 ? occupied_integral_ / (static_cast<double>(cluster_.num_servers()) * end_time)
                   : 0;
  if (!jcts.empty()) {
    double sum = 0;
    for (double j : jcts) sum += j;
    s.mean_jct = sum / jcts.size();
    std::vector<double> sorted = jcts;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    s.median_jct = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    s.mean_speedup = speedups / jcts.size();
    s.mean_servers = servers / jcts.size();
  }
  if (!config_.record_jobs) result_.jobs.clear();
  result_.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

std::unique_ptr<Environment> Environment::branch(std::unique_ptr<JobStream> future) const {
  if (obs_.done || !current_) throw InputError("branch", "the episode is over; nothing to decide");
  EnvironmentConfig config = config_;
  config.record_jobs = false;
  config.record_timeline = false;
  auto b = std::make_unique<Environment>(std::move(config));
  b->cluster_ = cluster_;
  b->cache_ = cache_;
  b->stream_ = std::move(future);
  b->current_ = current_;
  b->policy_rng_ = policy_rng_;
  b->time_ = time_;
  b->arrived_ = arrived_;  // job ids stay distinct from the running jobs'
  b->running_ = running_;
  b->completions_ = completions_;
  b->result_.jobs = {result_.jobs[current_index_]};
  b->current_index_ = 0;
  b->obs_ = obs_;
  b->obs_.cluster = &b->cluster_;
  b->obs_.job = &*b->current_;
  b->wall_start_ = std::chrono::steady_clock::now();
  return b;
}

int Environment::choose(Policy& policy) {
  if (obs_.done) throw InputError("policy", "the episode is over; call reset()");
  DecisionContext context{*current_->graph,   current_->beta, cluster_,   obs_.mask,
                          *config_.estimator, cache_,         policy_rng_};
  return policy.choose(context);
}

StepResult Environment::step(int action) {
  if (obs_.done) throw InputError("action", "the episode is over; call reset()");
  if (action < 0 || action >= static_cast<int>(obs_.mask.size()) || !obs_.mask[action])
    throw InputError("action", "action " + std::to_string(action) + " is not allowed by the mask");
  StepResult out;
  const JobSpec& job = *current_;
  JobRecord& r = result_.jobs[current_index_];
  r.action = action;
  out.estimate = config_.estimator->estimate(*job.graph, action, job.beta, cluster_, cache_);
  const Estimate& e = out.estimate;
  if (action > 0) {
    ++result_.stats.lookaheads;
    if (e.cache_hit) ++result_.stats.cache_hits;
  }
  const double scale = static_cast<double>(job.steps) / config_.estimator->steps();
  r.degree = e.degree;
  r.jct = e.jct * scale;
  r.comm_time = e.comm_time * scale;
  r.comp_time = e.comp_time * scale;
  r.speedup = e.speedup;
  r.cache_hit = e.cache_hit;
  if (e.placed) r.servers = e.servers_used();
  switch (e.blocked) {
    case BlockCause::kNone:
      r.outcome = JobOutcome::kCompleted;
      break;
    case BlockCause::kDeclined:
      r.outcome = JobOutcome::kDeclined;
      break;
    case BlockCause::kNoPlacement:
      r.outcome = JobOutcome::kNoPlacement;
      break;
    case BlockCause::kDeadline:
      r.outcome = JobOutcome::kDeadline;
      break;
  }
  out.outcome = r.outcome;
  if (e.accepted()) {
    const JobId id = r.index;
    cluster_.occupy(id, e.placement.servers);
    r.start = time_;
    r.end = time_ + r.jct;
    running_[id] = RunningJob{id, r.start, r.end, e.placement.servers};
    completions_.push({r.end, id});
    sample();
    out.reward = 1;
  } else {
    out.reward = -1;
  }
  current_.reset();
  obs_.job = nullptr;
  ++obs_.decision;
  advance();
  out.done = obs_.done;
  return out;
}

}  // namespace pacml::sim
