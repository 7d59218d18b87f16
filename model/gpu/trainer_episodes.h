// The fixed part of the GPU policy's training (model/gpu/trainer.h): the
// episodes of the config's scenario grids, their jobs, the teacher's cap
// searched per episode, and the replay that scores a policy on one. Internal
// to the trainer; split from the DAgger loop (model/gpu/trainer.cpp) so that
// each reads on its own: this file knows clusters, workloads and replays, the
// loop knows rollouts, the dataset and the network.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/features/features.h"
#include "core/gpu/policy.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/physical_estimator.h"
#include "model/gpu/trainer.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/gpu/replay.h"

namespace pacml::gpu {

struct Scenario {
  int workload = 0;       // into Setup::workloads
  std::string cluster;    // as configured
  int cluster_index = 0;  // into Setup::estimators
  double load = 1;        // as configured
  double generator_load = 1;
  Admission admission = Admission::kImmediate;
};

struct Episode {
  Scenario scenario;
  std::uint64_t seed = 0;
  std::vector<Job> jobs;
  double cap = INFINITY;  // the teacher's, searched on these jobs
  double teacher_met = 0, min_feasible_met = 0;
};

// Runs fn(i, worker) for i in [0, n) on `threads` threads; rethrows the
// first error in index order.
template <typename Fn>
void parallel_for(size_t n, int threads, Fn fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&](int worker) {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i, worker);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const int t = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k) pool.emplace_back(work, k);
  work(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// The job graphs the network embeds, one per ParallelJob key, encoded as
// LearnedPolicy encodes them (the unpartitioned step graph at the job's
// global batch, physical edge sizes).
struct GraphTable {
  std::vector<features::JobFeatures> graphs;
  std::map<std::string, int> index;
  void add(const ParallelJob& job);
  int of(const ParallelJob* job) const;
};

// Everything fixed before the first iteration.
struct Setup {
  std::vector<FittedWorkload> workloads;                             // as the config lists them
  std::vector<std::shared_ptr<const PhysicalEstimator>> estimators;  // one per distinct cluster
  std::map<std::string, int> cluster_index;
  std::vector<Episode> train, validation;
  GraphTable graphs;
  QueueOrder order = QueueOrder::kEarliestDeadline;
  int workers = 1;
  // Duration models are not thread-safe: each worker keeps one per cluster.
  // Their answers do not depend on what they cached, so results do not
  // depend on which worker ran an episode.
  mutable std::vector<std::map<int, std::unique_ptr<DurationModel>>> durations;
  DurationModel& durations_of(int worker, int cluster) const;
};

// The episodes of the config's training and validation grids, their jobs
// drawn, the graphs the network embeds and each episode's searched cap (on
// `workers` threads; the results do not depend on their number).
std::unique_ptr<Setup> make_setup(const TrainConfig& c, int workers);

// The teacher: the GPU policy capped:X (core/gpu/policy.h): the
// fewest GPUs that meet the deadline now if that run costs at most `cap`
// cluster-hours, else the job is turned away.
Policy capped_teacher(double cap);

// The share of the episode's deadlines that `policy` meets in a replay with
// the RNG seeded by `rng_seed`.
double replay_met(const Setup& s, const Episode& e, const Policy& policy, int worker,
                  std::uint64_t rng_seed);

}  // namespace pacml::gpu
