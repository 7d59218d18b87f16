// Running whole episodes: one policy on one seed, or a batch of them on
// several threads (each task gets its own Environment and Policy).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/engine/environment.h"

namespace pacml::sim {

// Runs one episode of `policy` from reset(seed) to done.
EpisodeResult run_episode(Environment& env, Policy& policy, std::uint64_t seed);

struct EpisodeTask {
  EnvironmentConfig config;  // config.policy_label names the policy
  std::string policy;        // built with make_policy() in the worker thread
  std::uint64_t seed = 0;
};

// Runs every task on `threads` threads (≥ 1); results are in task order and do
// not depend on the thread count. `on_done(finished, total)` is called after
// each episode (serialised). The first exception of any task is rethrown.
std::vector<EpisodeResult> run_episodes(const std::vector<EpisodeTask>& tasks, int threads,
                                        const std::function<void(size_t, size_t)>& on_done = {});

// Runs task(i) for every i in [0, count) on `threads` threads (≥ 1), each
// index exactly once; `on_done(finished, count)` is called after each task
// (serialised). The first exception of any task is rethrown once all threads
// have stopped; tasks not yet started are skipped.
void for_each_in_parallel(size_t count, int threads, const std::function<void(size_t)>& task,
                          const std::function<void(size_t, size_t)>& on_done = {});

// Threads to use by default: hardware concurrency (at least 1).
int default_threads();

}  // namespace pacml::sim
