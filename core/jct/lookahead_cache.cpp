#include "core/jct/lookahead_cache.h"

namespace pacml {

std::string LookaheadCache::key(std::uint64_t graph_fingerprint, int degree) {
  const std::int64_t values[] = {static_cast<std::int64_t>(graph_fingerprint), degree};
  return std::string(reinterpret_cast<const char*>(values), sizeof values);
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
