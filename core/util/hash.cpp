#include "core/util/hash.h"

namespace pacml {

std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * kFnvPrime;
  return hash;
}

std::uint64_t fnv1a64(const std::string& text, std::uint64_t hash) {
  return fnv1a64(text.data(), text.size(), hash);
}

}  // namespace pacml
