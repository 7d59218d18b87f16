// Synthetic workloads (the paper's set-up and variations): each arrival is one
// of a set of graphs, uniformly, with β from a BetaSpec and N training steps;
// interarrival times fixed or exponential.
//
// Draw order per job (fixed, so a seed always gives the same stream): graph
// index, then β, then the interarrival time to the next job.
#pragma once

#include "sim/engine/beta_distribution.h"
#include "sim/engine/workload.h"

namespace pacml::sim {

struct SyntheticOptions {
  std::vector<JobGraphPtr> graphs;  // at least one
  BetaSpec beta;
  bool exponential = false;    // interarrival: fixed (false) or exponential with this mean
  double interarrival = 1000;  // profile time units
  double first_arrival = 0;
  long max_jobs = -1;  // -1: unlimited (the horizon ends the episode)
  int steps = 50;      // N per job
};

class SyntheticWorkload : public Workload {
 public:
  // Throws InputError("workload", ...) for an empty graph set or bad numbers.
  explicit SyntheticWorkload(SyntheticOptions options);

  std::unique_ptr<JobStream> start(std::uint64_t seed) const override;
  std::vector<JobGraphPtr> graphs() const override { return options_.graphs; }
  std::string beta_label() const override { return options_.beta.label(); }
  std::string describe() const override;
  const SyntheticOptions& options() const { return options_; }

 private:
  SyntheticOptions options_;
};

}  // namespace pacml::sim
