// The blocking no policy can avoid in an experiment: jobs that no action
// would serve even on an empty cluster. Whatever a policy does with the
// other jobs, these are blocked, so their share bounds every policy's
// blocking rate from below (`pacml evaluate --bound`). It tells a researcher
// how much of a table is the workload and how much is left to the policy:
// in the physical profile most deadlines the paper's β distributions draw
// are out of reach of any degree.
//
// A job counts as unservable when, on an empty cluster of the experiment's
// topology, no valid action is accepted (placed with JCT ≤ β·JCT_seq) and
// finishes by the horizon (a job still running then counts as blocked). An
// empty cluster is the best case: placement is first fit on a symmetric RAMP
// topology, and a job's JCT does not depend on the jobs beside it (doc/MODEL.md
// §6). The rate's denominator is the arrived jobs, as in the environment's
// blocking rate (arrivals exactly at the horizon are counted, never blocked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/experiment/experiment.h"
#include "sim/experiment/summary.h"

namespace pacml::sim {

struct EpisodeBound {
  std::string beta_dist;
  std::uint64_t seed = 0;
  long arrived = 0;     // as the environment counts them
  long unservable = 0;  // no action serves them on an empty cluster
  double rate() const { return arrived ? static_cast<double>(unservable) / arrived : 0; }
};

// One episode's bound: the jobs reset(seed) would bring, β distribution `beta`.
EpisodeBound episode_bound(const Experiment& experiment, size_t beta, std::uint64_t seed);

// Every (β distribution, seed) of the experiment, β-major, on `threads` threads.
std::vector<EpisodeBound> experiment_bounds(const Experiment& experiment, int threads);

// Mean ± 95% CI of the rate over seeds, per β distribution (first-appearance order).
struct BoundSummary {
  std::string beta_dist;
  int seeds = 0;
  Stat rate;
};
std::vector<BoundSummary> summarize_bounds(const std::vector<EpisodeBound>& bounds);
nlohmann::json bound_summary_to_json(const BoundSummary& b);

}  // namespace pacml::sim
