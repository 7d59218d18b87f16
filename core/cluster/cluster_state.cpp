#include "core/cluster/cluster_state.h"

#include <stdexcept>
#include <string>

namespace pacml {

ClusterState::ClusterState(const RampTopology& topology)
    : topology_(topology), owner_(topology.num_servers(), kNoJob), free_(topology.num_servers()) {}

void ClusterState::occupy(JobId job, const std::vector<int>& servers) {
  for (int s : servers)
    if (s < 0 || s >= num_servers() || (owner_[s] != kNoJob && owner_[s] != job))
      throw std::logic_error("server " + std::to_string(s) + " is not free for job " +
                             std::to_string(job));
  for (int s : servers)
    if (owner_[s] == kNoJob) owner_[s] = job, --free_;
}

int ClusterState::release(JobId job) {
  int count = 0;
  for (JobId& owner : owner_)
    if (owner == job) owner = kNoJob, ++count;
  free_ += count;
  return count;
}

}  // namespace pacml
