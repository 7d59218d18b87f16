// A trained PAC-ML policy loaded from a weights file: metadata checked
// against this build's feature schema and action set, normalisers, and the
// Eigen network. Immutable after loading; share it between threads.
//
// Metadata keys (JSON object):
//   format          "pacml-weights"
//   architecture    Architecture::to_json()
//   feature_schema  features::schema_json() — must equal this build's
//   normalisers     features::Normalisers::to_json()
//   actions         [0, 1, …, 16] — must equal this build's action set
//   profile         "reference" | "physical" (the profile it was trained in)
//   topology        {"shape": "4x4x2", "servers": 32}
//   training        the training configuration and results (free form)
//   git_revision    the source revision that trained it ("unknown" if none)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/features/features.h"
#include "core/inference/architecture.h"
#include "core/inference/network.h"
#include "core/inference/weights_file.h"

namespace pacml::inference {

class LearnedModel {
 public:
  // Validates metadata and tensors; throws InputError(where, ...) with a
  // message that says what does not match.
  LearnedModel(const WeightsFile& weights, const std::string& where);

  static std::shared_ptr<const LearnedModel> load(const std::string& path);

  const nlohmann::json& metadata() const { return metadata_; }
  const Architecture& architecture() const { return network_.architecture(); }
  const features::Normalisers& normalisers() const { return normalisers_; }
  const std::string& profile() const { return profile_; }
  const Network& network() const { return network_; }
  const std::string& source() const { return source_; }

 private:
  nlohmann::json metadata_;
  features::Normalisers normalisers_;
  std::string profile_;
  std::string source_;
  Network network_;
};

// The action set this build uses (0..16).
std::vector<int> action_set();

// Builds the metadata object for a weights file.
nlohmann::json make_metadata(const Architecture& arch, const features::Normalisers& norm,
                             const std::string& profile, const nlohmann::json& topology,
                             const nlohmann::json& training, const std::string& git_revision);

}  // namespace pacml::inference
