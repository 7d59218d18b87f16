#include "core/gpu/learned_policy.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <tuple>

#include "core/inference/learned_policy.h"
#include "core/inference/network.h"
#include "core/parallel/parallel_job.h"
#include "core/util/error.h"

namespace pacml::gpu {
namespace {

std::string architecture_kind(const nlohmann::json& meta) {
  const auto a = meta.find("architecture");
  if (a == meta.end() || !a->is_object() || !a->contains("kind") || !(*a)["kind"].is_string())
    return "";
  return (*a)["kind"].get<std::string>();
}

Network make_network(const inference::WeightsFile& weights, const std::string& where) {
  const nlohmann::json& meta = weights.metadata;
  if (inference::require_metadata(meta, "format", where) != "pacml-weights")
    throw InputError(where, "weights metadata: format is not \"pacml-weights\"");
  const std::string kind = architecture_kind(meta);
  if (kind != Architecture::kKind)
    throw InputError(where, "'" + kind +
                                "' weights are a paper-world policy (pacml simulate); a GPU "
                                "policy needs a pacml-gpu model (pacml train --config "
                                "contrib/train/gpu-default.yaml)");
  const nlohmann::json& schema = inference::require_metadata(meta, "feature_schema", where);
  if (schema != schema_json())
    throw InputError(where, "GPU feature schema mismatch: the model was trained with " +
                                schema.dump().substr(0, 120) + "…, this pacml encodes version " +
                                std::to_string(kSchemaVersion) +
                                "; retrain the model (pacml train) or use a matching pacml");
  const Architecture arch =
      Architecture::from_json(inference::require_metadata(meta, "architecture", where), where);
  return Network(arch, weights, where);
}

}  // namespace

LearnedModel::LearnedModel(const inference::WeightsFile& weights, const std::string& where)
    : metadata_(weights.metadata), source_(where), network_(make_network(weights, where)) {}

std::shared_ptr<const LearnedModel> LearnedModel::load(const std::string& path) {
  return std::make_shared<const LearnedModel>(inference::read_weights_file(path), path);
}

nlohmann::json make_metadata(const Architecture& arch, const nlohmann::json& training,
                             const std::string& git_revision) {
  return {{"format", "pacml-weights"},
          {"architecture", arch.to_json()},
          {"feature_schema", schema_json()},
          {"profile", "physical"},
          {"training", training},
          {"git_revision", git_revision.empty() ? "unknown" : git_revision}};
}

bool is_gpu_weights(const inference::WeightsFile& weights) {
  return architecture_kind(weights.metadata) == Architecture::kKind;
}

LearnedPolicy::LearnedPolicy(std::shared_ptr<const LearnedModel> model, bool sample)
    : model_(std::move(model)), sample_(sample) {
  zeros_ = model_->network().with_prefix(
      std::vector<float>(static_cast<size_t>(model_->architecture().graph.embedding()), 0.f));
}

const JobEmbedding& LearnedPolicy::embedded(const ParallelJob* job) {
  if (!job) return zeros_;
  if (last_ && last_serial_ == job->serial()) return *last_;
  last_ = cache_.find(job->key(), job->serial());
  if (!last_) {
    const features::JobFeatures f = job_features(*job);
    JobEmbedding e = model_->network().with_prefix(model_->network().embed(f));
    const std::size_t bytes = (e.embedding.size() + e.act1_prefix.size()) * sizeof(float);
    last_ = cache_.insert(job->key(), e, bytes, job->serial());
    if (!last_) {
      oversized_ = std::move(e);  // larger than the cache: valid until the next call
      return oversized_;
    }
  }
  last_serial_ = job->serial();
  return *last_;
}

int LearnedPolicy::pick(const std::vector<float>& logits, Rng& rng) const {
  const std::vector<bool> all(logits.size(), true);
  int action = inference::greedy_action(logits.data(), all);
  if (sample_) {
    const std::vector<double> p = inference::masked_softmax(logits.data(), all);
    double u = rng.uniform(), acc = 0;
    for (size_t a = 0; a < p.size(); ++a)
      if (u < (acc += p[a])) {
        action = static_cast<int>(a);
        break;
      }
  }
  return action;
}

LearnedDecision LearnedPolicy::decide(const DecisionInput& input, Rng& rng) {
  LearnedDecision d;
  d.features = decision_features(input);
  const JobEmbedding& job = embedded(input.job);
  d.embedding = job.embedding;
  model_->network().score(job, d.features, d.logits, &d.value);
  d.action = pick(d.logits, rng);
  return d;
}

int LearnedPolicy::choose(const DecisionInput& input, Rng& rng) {
  decision_features(input, features_);
  // With "do not start" the only candidate, the answer is 0 whatever the
  // logit; a sampling policy still scores and draws, to keep its RNG stream.
  if (features_.gpus.size() == 1 && !sample_) return gpus_for_action(features_, 0);
  model_->network().score(embedded(input.job), features_, logits_, nullptr);
  int action = 0;
  if (sample_) {
    action = pick(logits_, rng);
  } else {
    // inference::greedy_action without its mask: the first of the highest logits.
    for (int a = 1; a < static_cast<int>(logits_.size()); ++a)
      if (logits_[a] > logits_[action]) action = a;
  }
  return gpus_for_action(features_, action);
}

namespace {

std::shared_ptr<const LearnedModel> load_cached(const std::string& path, const std::string& where) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw InputError(where, "cannot read '" + path + "'");
  static std::mutex mutex;
  static std::map<std::tuple<std::string, long long, long long>,
                  std::shared_ptr<const LearnedModel>>
      models;
  const auto key = std::make_tuple(path, static_cast<long long>(st.st_size),
                                   static_cast<long long>(st.st_mtime));
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto it = models.find(key);
    if (it != models.end()) return it->second;
  }
  std::shared_ptr<const LearnedModel> model;
  try {
    model = LearnedModel::load(path);
  } catch (const InputError& e) {
    throw InputError(where, e.what());  // the file's message, after the setting that named it
  }
  std::lock_guard<std::mutex> lock(mutex);
  return models[key] = model;
}

}  // namespace

Policy make_learned_policy(const std::string& name, const std::string& where,
                           const std::vector<std::string>& search_dirs) {
  const std::string path = inference::resolve_model_path(name, where, search_dirs);
  auto policy = std::make_shared<LearnedPolicy>(load_cached(path, where),
                                                name.find("?sample") != std::string::npos);
  return Policy::of_chooser(
      name.rfind("pacml:", 0) == 0 ? name : "pacml:" + name,
      [policy](const DecisionInput& input, Rng& rng) { return policy->choose(input, rng); });
}

}  // namespace pacml::gpu
