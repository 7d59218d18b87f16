// Caches of one-step lookahead results (doc/MODEL.md §6).
//
//  reference: keyed by (model, degree) and cleared every episode — the
//             reference simulator's shortcut, which ignores where a job sits.
//  physical:  keyed by what determines the result — the graph, its split
//             vector and the placement's shape up to relabelling each server
//             coordinate — so entries stay valid across episodes.
//
// Thread-safe: any number of threads may look up and insert concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "core/cluster/ramp_topology.h"
#include "core/jct/lookahead.h"
#include "core/profile.h"

namespace pacml {

class LookaheadCache {
 public:
  // Builds the key for a placed job under the profile's rule.
  static std::string key(JctCacheKey rule, std::uint64_t graph_fingerprint,
                         const PartitionedGraph& graph, const Placement& placement,
                         const RampTopology& topology);

  std::optional<StepTiming> find(const std::string& key) const;
  void insert(const std::string& key, const StepTiming& timing);
  void clear();
  size_t size() const;
  std::uint64_t hits() const { return hits_.load(); }
  std::uint64_t misses() const { return misses_.load(); }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, StepTiming> entries_;
  mutable std::atomic<std::uint64_t> hits_{0}, misses_{0};
};

}  // namespace pacml
