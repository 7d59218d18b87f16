// The policy interface: given an arriving job and the cluster, choose an
// action a ∈ {0, 1, 2, 4, …, 16} from the mask. Baselines (baselines.h) and the
// learned PAC-ML policy implement it; the simulator and the Slurm plugin call it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cluster/cluster_state.h"
#include "core/graph/job_graph.h"
#include "core/jct/estimator.h"

namespace pacml {

// Deterministic random source: SplitMix64, identical on every platform
// (std::uniform_int_distribution is not), so a seed gives the same decisions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n ≥ 1, without modulo bias.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do x = next();
    while (x >= limit);
    return x % n;
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Everything a policy may look at when a job arrives.
struct DecisionContext {
  const JobGraph& job;
  double beta;  // JCT requirement fraction
  const ClusterState& cluster;
  const std::vector<bool>& mask;  // action_mask(cluster, kMaxAction)
  const JctEstimator& estimator;  // for policies that look ahead
  LookaheadCache* cache;          // may be null
  Rng& rng;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // Returns a masked-valid action (0 = decline).
  virtual int choose(const DecisionContext& context) = 0;
};

using PolicyPtr = std::unique_ptr<Policy>;

}  // namespace pacml
