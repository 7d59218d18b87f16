// Caches of one step's timing (doc/MODEL.md §6), keyed by (graph, degree).
//
//  reference: the lookahead, cleared every episode — the reference
//             simulator's shortcut, which ignores where a job sits.
//  physical:  the op strategy's step, which depends on nothing else, so
//             entries stay valid across episodes.
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

  // The key of a job's step at `degree` (doc/MODEL.md §6).
  static std::string key(std::uint64_t graph_fingerprint, int degree);

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
