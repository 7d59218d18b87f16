// The event-driven RAMP cluster simulation (doc/MODEL.md §7) behind a Gym-like API.
//
//   Environment env(config);
//   Observation obs = env.reset(seed);       // first arrival
//   while (!obs.done) {
//     int a = env.choose(policy);            // or the learner's action
//     StepResult r = env.step(a);            // reward +1 accepted / −1 blocked
//     obs = env.observe();                   // next arrival (completions applied)
//   }
//   const EpisodeResult& result = env.result();
//
// Episode rules: jobs arrive from the workload's stream; an arrival strictly
// before the horizon is decided (one decision per arrival); completions at
// time t are applied before the arrival at t is decided; an arrival exactly at
// the horizon is counted but never decided ("undecided"); arrivals after the
// horizon never happen. Accepted jobs hold their servers for exactly their JCT.
// At the horizon, jobs still running count as blocked (cause
// running_at_horizon). With an infinite horizon the episode runs until the
// workload is exhausted and the last job has finished.
//
// An Environment is single-threaded; run one per thread. The estimator and the
// workload are shared read-only; the reference profile's lookahead cache is
// owned by the environment and cleared every reset (doc/MODEL.md §6).
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cluster/cluster_state.h"
#include "core/jct/estimator.h"
#include "core/jct/lookahead_cache.h"
#include "core/policy/policy.h"
#include "sim/engine/workload.h"

namespace pacml::sim {

constexpr double kInfiniteHorizon = std::numeric_limits<double>::infinity();

// How an arrived job ended. Exactly one per arrived job.
enum class JobOutcome {
  kCompleted,         // accepted and finished by the horizon
  kRunningAtHorizon,  // accepted but still running at the horizon: blocked
  kDeclined,          // the policy chose 0: blocked
  kNoPlacement,       // first fit found no block: blocked
  kDeadline,          // predicted JCT > β·JCT_seq: blocked
  kUndecided,         // arrived exactly at the horizon, never decided
};
const char* job_outcome_name(JobOutcome outcome);
bool is_blocked(JobOutcome outcome);

struct JobRecord {
  long index = 0;  // arrival order, from 0
  std::string id, model, source;
  double arrival = 0, beta = 0;
  int steps = 0;
  int action = -1;  // -1: undecided
  JobOutcome outcome = JobOutcome::kUndecided;
  int degree = 0, servers = 0;
  double start = 0, end = 0;  // end = start + JCT (may lie beyond the horizon)
  double jct = 0, jct_max = 0, jct_seq = 0, speedup = 0;
  double comm_time = 0, comp_time = 0;
  double done_fraction = 0;  // share of the job done inside the horizon
  double demand = 0;         // original total op memory + total edge size (bytes)
  bool cache_hit = false;
};

struct OccupancySample {
  double time = 0;
  int occupied = 0;  // servers held by jobs
  int running = 0;   // jobs running
};

struct EpisodeStats {
  std::uint64_t seed = 0;
  std::string policy, beta_dist;
  long arrived = 0, decisions = 0, accepted = 0, completed = 0, blocked = 0;
  long declined = 0, no_placement = 0, deadline = 0, running_at_horizon = 0, undecided = 0;
  double blocking_rate = 0;    // blocked / arrived
  double acceptance_rate = 0;  // completed / arrived
  double throughput = 0;       // demand throughput, bytes per time unit (doc/MODEL.md §7)
  double end_time = 0;         // simulated time the metrics cover
  double mean_occupancy = 0;   // time-averaged occupied servers / servers
  double mean_jct = 0, median_jct = 0, mean_speedup = 0, mean_servers = 0;  // accepted jobs
  // Server-hours held by jobs (a server is one worker, one GPU in the
  // physical profile; hours of the profile's time unit / 3600).
  double gpu_hours = 0;
  long lookaheads = 0, cache_hits = 0;
};

struct EpisodeResult {
  EpisodeStats stats;
  std::vector<JobRecord> jobs;            // arrival order (if recorded)
  std::vector<OccupancySample> timeline;  // after every change (if recorded)
  double wall_seconds = 0;                // not part of any deterministic output
};

struct EnvironmentConfig {
  std::shared_ptr<const JctEstimator> estimator;
  WorkloadPtr workload;
  double horizon = 1e6;  // kInfiniteHorizon: run the workload to its end
  // Used instead of the environment's own cache when the profile's cache key
  // is shareable (physical); ignored for the reference profile.
  std::shared_ptr<LookaheadCache> shared_cache;
  bool record_jobs = true;
  bool record_timeline = true;
  // Benchmarks only: keep the environment's own lookahead cache across
  // resets (a "warm" rerun of the same episode). Never for real results with
  // the reference profile, whose cache must live for one episode.
  bool keep_cache_across_resets = false;
  std::string policy_label;  // copied into EpisodeStats::policy
};

struct Observation {
  const JobSpec* job = nullptr;  // the arriving job; null when done
  double time = 0;
  long decision = 0;       // decisions taken so far
  std::vector<bool> mask;  // action_mask(cluster, kMaxAction)
  const ClusterState* cluster = nullptr;
  double sequential_jct = 0;  // JCT_seq of the arriving job (its own N)
  bool done = false;
};

struct StepResult {
  double reward = 0;  // +1 accepted, −1 blocked
  bool done = false;
  JobOutcome outcome = JobOutcome::kDeclined;
  Estimate estimate;
};

struct RunningJob {
  JobId id = 0;
  double start = 0, end = 0;
  std::vector<int> servers;
};

class Environment {
 public:
  explicit Environment(EnvironmentConfig config);

  // Starts an episode; the workload stream and the policy RNG derive from seed.
  const Observation& reset(std::uint64_t seed);
  const Observation& observe() const { return obs_; }
  // Applies an action to the current job (throws InputError for an action the
  // mask forbids or after the episode is done) and runs to the next arrival.
  StepResult step(int action);
  // Asks `policy` for the current job's action (policy RNG of this episode).
  int choose(Policy& policy);
  bool done() const { return obs_.done; }

  // The episode's metrics; complete once done().
  const EpisodeResult& result() const { return result_; }
  EpisodeResult take_result() { return std::move(result_); }

  const ClusterState& cluster() const { return cluster_; }
  const JctEstimator& estimator() const { return *config_.estimator; }
  const EnvironmentConfig& config() const { return config_; }
  LookaheadCache* cache() { return cache_; }
  Rng& policy_rng() { return policy_rng_; }
  double time() const { return time_; }
  const std::map<JobId, RunningJob>& running() const { return running_; }
  // Demand (bytes) of a graph: original total op memory + total edge size.
  double demand(const JobGraph& graph);

  // A what-if copy for lookahead search: the same cluster, running jobs,
  // time and pending decision, but later arrivals come from `future` instead
  // of the real workload (so the copy cannot see the real future). It records
  // nothing and shares this environment's lookahead cache, so this
  // environment must outlive it. Throws if the episode is over.
  std::unique_ptr<Environment> branch(std::unique_ptr<JobStream> future) const;

 private:
  void advance();                 // to the next decision or the end
  void complete_until(double t);  // completions with end ≤ t
  void set_time(double t);
  void sample();  // timeline point
  void arrive(JobSpec spec);
  void finish(double end_time);

  EnvironmentConfig config_;
  ClusterState cluster_;
  LookaheadCache own_cache_;
  LookaheadCache* cache_ = nullptr;
  std::unique_ptr<JobStream> stream_;
  std::optional<JobSpec> pending_;  // fetched but not yet arrived
  std::optional<JobSpec> current_;  // waiting for a decision
  Rng policy_rng_{0};
  double time_ = 0, occupied_integral_ = 0;
  long arrived_ = 0, current_index_ = -1;
  std::map<JobId, RunningJob> running_;
  using Completion = std::pair<double, JobId>;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<Completion>> completions_;
  std::unordered_map<const JobGraph*, double> demand_;
  Observation obs_;
  EpisodeResult result_;
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace pacml::sim
