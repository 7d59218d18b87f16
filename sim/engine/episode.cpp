#include "sim/engine/episode.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/engine/policy_factory.h"

namespace pacml::sim {

EpisodeResult run_episode(Environment& env, Policy& policy, std::uint64_t seed) {
  env.reset(seed);
  while (!env.done()) env.step(env.choose(policy));
  return env.take_result();
}

int default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

void for_each_in_parallel(size_t count, int threads, const std::function<void(size_t)>& task,
                          const std::function<void(size_t, size_t)>& on_done) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t finished = 0;
  std::exception_ptr error;
  auto worker = [&]() {
    for (;;) {
      const size_t i = next++;
      if (i >= count) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (error) return;
      }
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        return;
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++finished;
      if (on_done) on_done(finished, count);
    }
  };
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(count)));
  if (n == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < n; ++t) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
}

std::vector<EpisodeResult> run_episodes(const std::vector<EpisodeTask>& tasks, int threads,
                                        const std::function<void(size_t, size_t)>& on_done) {
  std::vector<EpisodeResult> results(tasks.size());
  for_each_in_parallel(
      tasks.size(), threads,
      [&](size_t i) {
        PolicyPtr policy = make_policy(tasks[i].policy);
        EnvironmentConfig config = tasks[i].config;
        if (config.policy_label.empty()) config.policy_label = tasks[i].policy;
        Environment env(std::move(config));
        results[i] = run_episode(env, *policy, tasks[i].seed);
      },
      on_done);
  return results;
}

}  // namespace pacml::sim
