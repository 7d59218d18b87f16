// Rollout search: improves a base policy by trying each candidate action of
// the current decision in what-if copies of the simulator (Bertsekas's
// rollout algorithm, one step of policy iteration). The trainer uses it as
// the teacher that the network imitates before PPO (model/trainer.h).
//
// The copies see sampled futures drawn from the episode's workload, never
// the real upcoming jobs, so the search knows what the learned policy could
// know: the workload's distribution, not its realisation.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/engine/environment.h"

namespace pacml::sim {

struct RolloutSearchConfig {
  int lookahead = 30;    // arrivals followed by the base policy after the decision
  int samples = 2;       // sampled futures per candidate (the same for every candidate)
  double gamma = 0.997;  // discount of the ±1 rewards
  // A candidate after the first must beat the first's mean return by more
  // than this (in reward units; one job's outcome is worth 2), so that
  // sampling noise does not overturn the base policy's choice.
  double margin = 0;
};

struct RolloutSearchResult {
  int action = 0;             // the candidate with the highest mean return
  std::vector<double> value;  // per candidate, mean discounted return
};

// `candidates` in order of preference: a later candidate wins only with a
// strictly higher value, and over the first only by more than the margin (so
// put the base policy's own choice first). Futures
// derive from `seed`; the result is deterministic for a seed.
RolloutSearchResult rollout_search(const Environment& env, const std::vector<int>& candidates,
                                   Policy& base, const RolloutSearchConfig& config,
                                   std::uint64_t seed);

}  // namespace pacml::sim
