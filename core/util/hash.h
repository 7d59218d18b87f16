// FNV-1a (64-bit): pacml's one hash for fingerprints and checksums — of a
// job graph (the estimator caches by it), of a weights file (its trailing
// checksum), of a trace's job key (which model a job without one gets).
// Not cryptographic: it detects accidents, not tampering.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pacml {

inline constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ULL;
inline constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

// The hash of `size` bytes, continuing from `hash` (the offset basis to start).
std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash = kFnvOffsetBasis);
std::uint64_t fnv1a64(const std::string& text, std::uint64_t hash = kFnvOffsetBasis);

// Hashes a sequence of values, each by its bytes (a string by its bytes and
// then its length, so that "ab","c" and "a","bc" differ).
class Fnv1a {
 public:
  void add(const void* data, std::size_t size) { hash_ = fnv1a64(data, size, hash_); }
  void add(double value) { add(&value, sizeof value); }
  void add(int value) { add(&value, sizeof value); }
  void add(const std::string& text) {
    add(text.data(), text.size()), add(static_cast<int>(text.size()));
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = kFnvOffsetBasis;
};

}  // namespace pacml
