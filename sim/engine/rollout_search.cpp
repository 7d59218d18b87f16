#include "sim/engine/rollout_search.h"

#include <stdexcept>

namespace pacml::sim {

namespace {

// Discounted return of `action` now and `base` for `lookahead` more arrivals.
double rollout_return(const Environment& env, int action, Policy& base, int lookahead, double gamma,
                      std::uint64_t future_seed) {
  auto stream = future_stream(env.config().workload->start(future_seed), env.time());
  std::unique_ptr<Environment> what_if = env.branch(std::move(stream));
  double ret = what_if->step(action).reward, discount = 1;
  for (int k = 0; k < lookahead && !what_if->done(); ++k) {
    discount *= gamma;
    ret += discount * what_if->step(what_if->choose(base)).reward;
  }
  return ret;
}

}  // namespace

RolloutSearchResult rollout_search(const Environment& env, const std::vector<int>& candidates,
                                   Policy& base, const RolloutSearchConfig& config,
                                   std::uint64_t seed) {
  if (candidates.empty()) throw std::invalid_argument("rollout_search: no candidates");
  RolloutSearchResult r;
  r.value.assign(candidates.size(), 0);
  for (int s = 0; s < config.samples; ++s) {
    const std::uint64_t future = derive_seed(seed, static_cast<std::uint64_t>(s));
    for (size_t i = 0; i < candidates.size(); ++i)
      r.value[i] +=
          rollout_return(env, candidates[i], base, config.lookahead, config.gamma, future) /
          config.samples;
  }
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i)
    if (r.value[i] > r.value[best] && r.value[i] > r.value[0] + config.margin) best = i;
  r.action = candidates[best];
  return r;
}

}  // namespace pacml::sim
