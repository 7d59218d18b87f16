// Which GPUs of a cluster are free (doc/PHYSICAL.md §2): jobs take k GPUs on
// as few servers as possible — the packing the physical model times — and
// share a server when they take fewer GPUs than it has.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "core/cluster/cluster_spec.h"

namespace pacml::gpu {

// The GPUs a job holds: (server, GPUs on it).
using Allocation = std::vector<std::pair<int, int>>;

class ClusterState {
 public:
  explicit ClusterState(const ClusterSpec& cluster);

  int num_gpus() const { return static_cast<int>(free_.size()) * per_server_; }
  int free_gpus() const { return free_total_; }
  int gpus_per_server() const { return per_server_; }
  const std::vector<int>& free_per_server() const { return free_; }
  // Servers with every GPU free.
  int free_servers() const { return servers_with_free_.back(); }

  // k GPUs on ceil(k/G) servers: whole free servers for every G, the rest on
  // the free server that fits it most tightly. Nothing if they are not free.
  std::optional<Allocation> find(int gpus) const;
  // Whether find(gpus) would succeed, without building the allocation (asked
  // for every candidate count of every decision).
  bool fits(int gpus) const;
  void take(const Allocation& allocation);
  void release(const Allocation& allocation);

 private:
  void count_server(int free, int change) {
    servers_with_free_[static_cast<size_t>(free)] += change;
  }

  int per_server_;
  std::vector<int> free_;
  int free_total_;
  // servers_with_free_[f]: how many servers have exactly f GPUs free
  // (0..per_server), kept by take and release, so that fits() reads it
  // instead of scanning the servers.
  std::vector<int> servers_with_free_;
};

}  // namespace pacml::gpu
