// The portable weights file of the learned policy (no LibTorch needed).
//
// Layout, little endian:
//   magic "PACMLWTS" (8 bytes) | u32 format version | u64 metadata length |
//   metadata (UTF-8 JSON object) | u32 tensor count |
//   per tensor: u16 name length | name | u8 ndim | i64 dims[ndim] | f32 data[Π dims] |
//   u64 FNV-1a-64 checksum of every preceding byte.
//
// The metadata holds the architecture, the feature schema, the normalisers,
// the action set, the profile, the topology, the training configuration and
// the git revision (see learned_model.h for the keys that are checked).
// Reading refuses a wrong magic, another format version, a truncated file,
// trailing bytes and a checksum mismatch, each with a message naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pacml::inference {

constexpr char kWeightsMagic[8] = {'P', 'A', 'C', 'M', 'L', 'W', 'T', 'S'};
constexpr std::uint32_t kWeightsFormatVersion = 1;

struct NamedTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // row-major, Π shape entries

  std::int64_t numel() const;
};

struct WeightsFile {
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<NamedTensor> tensors;

  // Null if absent.
  const NamedTensor* find(const std::string& name) const;
};

// Serialises to bytes / parses bytes. `where` names the source in errors
// (InputError). Throws InputError for inconsistent tensors on write.
// metadata[key]; throws InputError(where, "weights metadata lacks 'KEY'").
const nlohmann::json& require_metadata(const nlohmann::json& metadata, const char* key,
                                       const std::string& where);

std::string serialize_weights(const WeightsFile& file);
WeightsFile parse_weights(const std::string& bytes, const std::string& where);

// File versions; the writer replaces `path` atomically (write + rename).
void write_weights_file(const std::string& path, const WeightsFile& file);
WeightsFile read_weights_file(const std::string& path);

}  // namespace pacml::inference
