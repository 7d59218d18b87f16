// Caches of one-step lookahead results (doc/MODEL.md §6).
//
//  reference: keyed by (model, degree) and cleared every episode — the
//             reference simulator's shortcut, which ignores where a job sits.
//  physical:  keyed by what determines the result — the graph, its split
//             vector and the placement's shape up to relabelling each server
//             coordinate — so entries stay valid across episodes.
//
// Thread-safe: any number of threads may look up and insert concurrently.
// Unbounded by default (the simulator and trainer see a fixed set of
// graphs and read it under a shared lock); given a byte budget it forgets
// the least recently used entries (the Slurm plugin, where every user's
// graph adds entries) at the price of an exclusive lock per lookup.
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
#include "core/util/lru_cache.h"

namespace pacml {

class LookaheadCache {
 public:
  // max_bytes = 0: unbounded.
  explicit LookaheadCache(std::size_t max_bytes = 0) : lru_(max_bytes), bounded_(max_bytes > 0) {}

  // Builds the key for a placed job under the profile's rule.
  static std::string key(JctCacheKey rule, std::uint64_t graph_fingerprint,
                         const PartitionedGraph& graph, const Placement& placement,
                         const RampTopology& topology);

  std::optional<StepTiming> find(const std::string& key) const;
  void insert(const std::string& key, const StepTiming& timing);
  void clear();
  size_t size() const;
  // Bytes held by a bounded cache (keys, values, bookkeeping); 0 if unbounded.
  size_t bytes() const;
  std::uint64_t hits() const { return hits_.load(); }
  std::uint64_t misses() const { return misses_.load(); }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, StepTiming> entries_;  // unbounded
  mutable LruCache<StepTiming> lru_;                     // bounded
  const bool bounded_;
  mutable std::atomic<std::uint64_t> hits_{0}, misses_{0};
};

}  // namespace pacml
