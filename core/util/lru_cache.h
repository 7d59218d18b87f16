// A cache bounded in bytes that forgets the least recently used entry first.
//
// Keys are full contents (a job's key spells out its graph), looked up by
// their hash and confirmed by comparing the whole key, so two different
// contents never share an entry however their hashes collide — a user's
// crafted graph cannot read or poison another user's entry. Each entry
// costs its key's and value's bytes as the caller counts them; inserting
// beyond the budget evicts from the cold end (an entry larger than the
// whole budget is not kept at all). Not thread-safe: callers lock.
//
// A caller that asks again and again with the same key object can also name
// it by a serial that no other content ever has (ParallelJob::serial()): the
// entry is then found by that number, without hashing or comparing the key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pacml {

template <class Value>
class LruCache {
 public:
  explicit LruCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}
  // Movable, not copyable: the serial index points into this cache's list.
  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;
  LruCache(LruCache&&) noexcept = default;
  LruCache& operator=(LruCache&&) noexcept = default;

  // The entry for `key`, now the most recently used; null if absent. The
  // pointer stays valid until the next insert.
  Value* find(const std::string& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->value;
  }

  // The same for the key whose content `serial` names (never 0); once
  // found by key, later finds with that serial skip the key.
  Value* find(const std::string& key, std::uint64_t serial) {
    const auto known = by_serial_.find(serial);
    if (known != by_serial_.end()) {
      order_.splice(order_.begin(), order_, known->second);
      return &known->second->value;
    }
    Value* value = find(key);
    if (value) remember(serial, order_.begin());
    return value;
  }

  // Stores `value` under `key` (replacing an older one), counting `bytes`
  // for the value; returns it, or null if it alone exceeds the budget.
  Value* insert(const std::string& key, Value value, std::size_t bytes) {
    erase(key);
    const std::size_t cost = bytes + 2 * key.size() + kOverheadBytes;
    if (cost > max_bytes_) return nullptr;
    order_.push_front(Entry{key, std::move(value), cost, {}});
    index_.emplace(key, order_.begin());
    bytes_ += cost;
    while (bytes_ > max_bytes_) erase(order_.back().key);
    return &order_.front().value;
  }
  Value* insert(const std::string& key, Value value, std::size_t bytes, std::uint64_t serial) {
    Value* stored = insert(key, std::move(value), bytes);
    if (stored) remember(serial, order_.begin());
    return stored;
  }

  void erase(const std::string& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return;
    bytes_ -= it->second->bytes;
    for (std::uint64_t serial : it->second->serials) by_serial_.erase(serial);
    order_.erase(it->second);
    index_.erase(it);
  }

  std::size_t size() const { return index_.size(); }
  std::size_t bytes() const { return bytes_; }
  std::size_t max_bytes() const { return max_bytes_; }

 private:
  // Per entry beyond the key (twice: list and index) and the value's bytes.
  static constexpr std::size_t kOverheadBytes = 128;
  // Serials remembered per entry: a key asked for by ever new objects (a
  // controller's job after job) keeps only the latest few.
  static constexpr std::size_t kSerialsPerEntry = 4;
  struct Entry {
    std::string key;
    Value value;
    std::size_t bytes;
    std::vector<std::uint64_t> serials;
  };
  using Position = typename std::list<Entry>::iterator;

  void remember(std::uint64_t serial, Position entry) {
    std::vector<std::uint64_t>& serials = entry->serials;
    if (serials.size() == kSerialsPerEntry) {
      by_serial_.erase(serials.front());
      serials.erase(serials.begin());
    }
    serials.push_back(serial);
    by_serial_[serial] = entry;
  }

  std::size_t max_bytes_, bytes_ = 0;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, Position> index_;
  std::unordered_map<std::uint64_t, Position> by_serial_;
};

}  // namespace pacml
