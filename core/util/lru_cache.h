// A cache bounded in bytes that forgets the least recently used entry first.
//
// Keys are full contents (a job's key spells out its graph), looked up by
// their hash and confirmed by comparing the whole key, so two different
// contents never share an entry however their hashes collide — a user's
// crafted graph cannot read or poison another user's entry. Each entry
// costs its key's and value's bytes as the caller counts them; inserting
// beyond the budget evicts from the cold end (an entry larger than the
// whole budget is not kept at all). Not thread-safe: callers lock.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace pacml {

template <class Value>
class LruCache {
 public:
  explicit LruCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // The entry for `key`, now the most recently used; null if absent. The
  // pointer stays valid until the next insert.
  Value* find(const std::string& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }

  // Stores `value` under `key` (replacing an older one), counting `bytes`
  // for the value; returns it, or null if it alone exceeds the budget.
  Value* insert(const std::string& key, Value value, std::size_t bytes) {
    erase(key);
    const std::size_t cost = bytes + 2 * key.size() + kOverheadBytes;
    if (cost > max_bytes_) return nullptr;
    order_.push_front(Entry{key, std::move(value), cost});
    index_.emplace(key, order_.begin());
    bytes_ += cost;
    while (bytes_ > max_bytes_) erase(order_.back().key);
    return &order_.front().value;
  }

  void erase(const std::string& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return;
    bytes_ -= it->second->bytes;
    order_.erase(it->second);
    index_.erase(it);
  }

  std::size_t size() const { return index_.size(); }
  std::size_t bytes() const { return bytes_; }
  std::size_t max_bytes() const { return max_bytes_; }

 private:
  // Per entry beyond the key (twice: list and index) and the value's bytes.
  static constexpr std::size_t kOverheadBytes = 128;
  struct Entry {
    std::string key;
    Value value;
    std::size_t bytes;
  };
  std::size_t max_bytes_, bytes_ = 0;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace pacml
