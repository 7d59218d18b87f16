#include "core/jct/lookahead_cache.h"

#include <unordered_map>

namespace pacml {
namespace {

void append(std::string& key, std::int64_t value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Renumbers values by first appearance, so translated or permuted coordinates
// give the same sequence (T_coll depends only on which coordinates are equal).
class Relabel {
 public:
  int operator()(int value) {
    return labels_.emplace(value, static_cast<int>(labels_.size())).first->second;
  }

 private:
  std::unordered_map<int, int> labels_;
};

}  // namespace

std::string LookaheadCache::key(JctCacheKey rule, std::uint64_t graph_fingerprint,
                                const PartitionedGraph& graph, const Placement& placement,
                                const RampTopology& topology) {
  std::string key;
  append(key, static_cast<std::int64_t>(graph_fingerprint));
  if (rule == JctCacheKey::kModelAndDegree) {
    append(key, graph.degree());
    return key;
  }
  for (int k : graph.splits()) append(key, k);
  Relabel groups, racks, ids;
  for (int server : placement.server_of) {
    ServerCoord c = topology.coord(server);
    append(key, (static_cast<std::int64_t>(groups(c.c)) << 40) |
                    (static_cast<std::int64_t>(racks(c.r)) << 20) | ids(c.s));
  }
  return key;
}

std::optional<StepTiming> LookaheadCache::find(const std::string& key) const {
  std::optional<StepTiming> found;
  if (bounded_) {
    std::unique_lock lock(mutex_);  // a hit reorders the LRU list
    if (const StepTiming* t = lru_.find(key)) found = *t;
  } else {
    std::shared_lock lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) found = it->second;
  }
  ++(found ? hits_ : misses_);
  return found;
}

void LookaheadCache::insert(const std::string& key, const StepTiming& timing) {
  std::unique_lock lock(mutex_);
  if (bounded_)
    lru_.insert(key, timing, sizeof timing);
  else
    entries_.emplace(key, timing);
}

void LookaheadCache::clear() {
  std::unique_lock lock(mutex_);
  entries_.clear();
  lru_ = LruCache<StepTiming>(lru_.max_bytes());
}

size_t LookaheadCache::size() const {
  std::shared_lock lock(mutex_);
  return bounded_ ? lru_.size() : entries_.size();
}

size_t LookaheadCache::bytes() const {
  std::shared_lock lock(mutex_);
  return lru_.bytes();
}

}  // namespace pacml
