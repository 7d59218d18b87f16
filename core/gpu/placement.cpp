#include "core/gpu/placement.h"

#include <algorithm>
#include <stdexcept>

namespace pacml::gpu {

ClusterState::ClusterState(const ClusterSpec& cluster)
    : per_server_(cluster.gpus_per_server),
      free_(cluster.num_servers(), cluster.gpus_per_server),
      free_total_(cluster.num_gpus()),
      servers_with_free_(static_cast<size_t>(cluster.gpus_per_server) + 1, 0) {
  servers_with_free_.back() = cluster.num_servers();
}

std::optional<Allocation> ClusterState::find(int gpus) const {
  if (gpus < 1 || gpus > free_total_) return std::nullopt;
  const int whole = gpus / per_server_, rest = gpus % per_server_;
  Allocation allocation;
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

bool ClusterState::fits(int gpus) const {
  if (gpus < 1 || gpus > free_total_) return false;
  const int whole = gpus / per_server_, rest = gpus % per_server_;
  const int whole_free = free_servers();
  if (whole_free < whole) return false;
  // find() takes the first `whole` wholly free servers; the rest goes on any
  // other server with room: a further wholly free one, or a partial one.
  if (rest == 0 || whole_free > whole) return true;
  for (int free = rest; free < per_server_; ++free)
    if (servers_with_free_[static_cast<size_t>(free)] > 0) return true;
  return false;
}

void ClusterState::take(const Allocation& allocation) {
  for (const auto& [server, gpus] : allocation) {
    if (free_.at(server) < gpus) throw std::logic_error("GPUs taken twice");
    count_server(free_[server], -1);
    free_[server] -= gpus;
    count_server(free_[server], +1);
    free_total_ -= gpus;
  }
}

void ClusterState::release(const Allocation& allocation) {
  for (const auto& [server, gpus] : allocation) {
    if (free_.at(server) + gpus > per_server_) throw std::logic_error("GPUs released twice");
    count_server(free_[server], -1);
    free_[server] += gpus;
    count_server(free_[server], +1);
    free_total_ += gpus;
  }
}

}  // namespace pacml::gpu
