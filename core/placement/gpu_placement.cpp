#include "core/placement/gpu_placement.h"

#include <algorithm>
#include <stdexcept>

namespace pacml {

GpuClusterState::GpuClusterState(const ClusterSpec& cluster)
    : per_server_(cluster.gpus_per_server),
      free_(cluster.num_servers(), cluster.gpus_per_server),
      free_total_(cluster.num_gpus()) {}

std::optional<GpuAllocation> GpuClusterState::find(int gpus) const {
  if (gpus < 1 || gpus > free_total_) return std::nullopt;
  const int whole = gpus / per_server_, rest = gpus % per_server_;
  GpuAllocation allocation;
  std::vector<bool> used(free_.size(), false);
  for (size_t s = 0; s < free_.size() && static_cast<int>(allocation.size()) < whole; ++s)
    if (free_[s] == per_server_)
      allocation.emplace_back(static_cast<int>(s), per_server_), used[s] = true;
  if (static_cast<int>(allocation.size()) < whole) return std::nullopt;
  if (rest == 0) return allocation;
  int best = -1;  // the server whose free GPUs fit `rest` most tightly
  for (size_t s = 0; s < free_.size(); ++s)
    if (!used[s] && free_[s] >= rest && (best < 0 || free_[s] < free_[best]))
      best = static_cast<int>(s);
  if (best < 0) return std::nullopt;
  allocation.emplace_back(best, rest);
  return allocation;
}

bool GpuClusterState::fits(int gpus) const {
  if (gpus < 1 || gpus > free_total_) return false;
  const int whole = gpus / per_server_, rest = gpus % per_server_;
  int whole_free = 0, widest_partial = 0;  // wholly free servers; most GPUs free on another
  for (int free : free_)
    if (free == per_server_)
      ++whole_free;
    else
      widest_partial = std::max(widest_partial, free);
  if (whole_free < whole) return false;
  // find() takes the first `whole` wholly free servers; the rest goes on any
  // other server with room: a further wholly free one, or a partial one.
  return rest == 0 || whole_free > whole || widest_partial >= rest;
}

void GpuClusterState::take(const GpuAllocation& allocation) {
  for (const auto& [server, gpus] : allocation) {
    if (free_.at(server) < gpus) throw std::logic_error("GPUs taken twice");
    free_[server] -= gpus;
    free_total_ -= gpus;
  }
}

void GpuClusterState::release(const GpuAllocation& allocation) {
  for (const auto& [server, gpus] : allocation) {
    free_.at(server) += gpus;
    free_total_ += gpus;
    if (free_[server] > per_server_) throw std::logic_error("GPUs released twice");
  }
}

}  // namespace pacml
