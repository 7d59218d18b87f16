// Which job holds each server of a RAMP cluster (doc/MODEL.md §2 RAMP rule: a
// server holds ops of at most one job). Placement reads it; the simulator and
// the Slurm plugin update it when jobs start and finish.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cluster/ramp_topology.h"

namespace pacml {

using JobId = std::int64_t;
constexpr JobId kNoJob = -1;

class ClusterState {
 public:
  explicit ClusterState(const RampTopology& topology);

  const RampTopology& topology() const { return topology_; }
  int num_servers() const { return static_cast<int>(owner_.size()); }
  int free_servers() const { return free_; }
  int occupied_servers() const { return num_servers() - free_; }
  bool is_free(int server) const { return owner_[server] == kNoJob; }
  JobId owner(int server) const { return owner_[server]; }

  // Gives `servers` to `job`; throws std::logic_error if one is taken by another job.
  void occupy(JobId job, const std::vector<int>& servers);
  // Frees every server held by `job`; returns how many.
  int release(JobId job);

 private:
  RampTopology topology_;
  std::vector<JobId> owner_;
  int free_;
};

}  // namespace pacml
