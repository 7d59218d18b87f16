#include "core/inference/learned_model.h"

#include "core/util/error.h"

namespace pacml::inference {
namespace {

Network make_network(const WeightsFile& weights, const std::string& where) {
  const nlohmann::json& meta = weights.metadata;
  const nlohmann::json& format = require_metadata(meta, "format", where);
  if (format != "pacml-weights")
    throw InputError(
        where, "weights metadata: format is " + format.dump() + ", expected \"pacml-weights\"");
  const auto arch_json = meta.find("architecture");
  if (arch_json != meta.end() && arch_json->is_object() &&
      arch_json->value("kind", "") == "pacml-gpu")
    throw InputError(where,
                     "a learned GPU policy (pacml-gpu) decides GPU counts on a GPU cluster "
                     "(pacml evaluate/replay with a cluster, pacml.conf with cluster:), not the "
                     "paper's degrees; the paper-world models are pacml:reference, pacml:physical, "
                     "pacml:paper-zoo");
  const nlohmann::json& schema = require_metadata(meta, "feature_schema", where);
  const nlohmann::json mine = features::schema_json();
  if (schema != mine) {
    const std::string theirs =
        schema.is_object() && schema.contains("version") ? schema["version"].dump() : "?";
    throw InputError(where, "feature schema mismatch: the model was trained with feature schema " +
                                theirs + " " + schema.dump().substr(0, 120) +
                                "…, this pacml encodes schema " + mine["version"].dump() +
                                "; retrain the model (pacml train) or use a matching pacml");
  }
  const nlohmann::json& actions = require_metadata(meta, "actions", where);
  if (actions != nlohmann::json(action_set()))
    throw InputError(where, "action set mismatch: the model has actions " + actions.dump() +
                                ", this pacml uses " + nlohmann::json(action_set()).dump());
  const Architecture arch =
      Architecture::from_json(require_metadata(meta, "architecture", where), where);
  if (arch.node_in != features::kNodeFeatures || arch.edge_in != features::kEdgeFeatures ||
      arch.graph_in != features::kGraphInputs || arch.actions != features::kNumActions)
    throw InputError(where, "architecture inputs (" + std::to_string(arch.node_in) + "/" +
                                std::to_string(arch.edge_in) + "/" + std::to_string(arch.graph_in) +
                                "/" + std::to_string(arch.actions) +
                                ") do not match the feature schema (" +
                                std::to_string(features::kNodeFeatures) + "/" +
                                std::to_string(features::kEdgeFeatures) + "/" +
                                std::to_string(features::kGraphInputs) + "/" +
                                std::to_string(features::kNumActions) + ")");
  return Network(arch, weights, where);
}

}  // namespace

std::vector<int> action_set() {
  std::vector<int> a;
  for (int i = 0; i < features::kNumActions; ++i) a.push_back(i);
  return a;
}

LearnedModel::LearnedModel(const WeightsFile& weights, const std::string& where)
    : metadata_(weights.metadata), source_(where), network_(make_network(weights, where)) {
  normalisers_ =
      features::Normalisers::from_json(require_metadata(metadata_, "normalisers", where), where);
  const nlohmann::json& profile = require_metadata(metadata_, "profile", where);
  if (!profile.is_string() || (profile != "reference" && profile != "physical"))
    throw InputError(where, "weights metadata: profile must be \"reference\" or \"physical\"");
  profile_ = profile.get<std::string>();
}

std::shared_ptr<const LearnedModel> LearnedModel::load(const std::string& path) {
  return std::make_shared<const LearnedModel>(read_weights_file(path), path);
}

nlohmann::json make_metadata(const Architecture& arch, const features::Normalisers& norm,
                             const std::string& profile, const nlohmann::json& topology,
                             const nlohmann::json& training, const std::string& git_revision) {
  return {{"format", "pacml-weights"},
          {"architecture", arch.to_json()},
          {"feature_schema", features::schema_json()},
          {"normalisers", norm.to_json()},
          {"actions", action_set()},
          {"profile", profile},
          {"topology", topology},
          {"training", training},
          {"git_revision", git_revision.empty() ? "unknown" : git_revision}};
}

}  // namespace pacml::inference
