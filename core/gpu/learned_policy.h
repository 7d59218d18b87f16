// The learned GPU policy (doc/LEARNING.md §7): a weights file of kind
// pacml-gpu, and the policy that scores each candidate action of a decision
// (core/gpu/features.h) with it. Named "pacml:NAME" wherever a GPU
// policy is accepted (pacml evaluate, pacml replay, pacml.conf's policy:),
// through Policy::parse.
//
// Metadata of a pacml-gpu weights file (JSON object):
//   format          "pacml-weights"
//   architecture    Architecture::to_json() ({"kind": "pacml-gpu", ...})
//   feature_schema  schema_json() — must equal this build's
//   profile         "physical"
//   training        the training configuration and results (free form)
//   git_revision    the source revision that trained it
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu/network.h"
#include "core/gpu/policy.h"
#include "core/util/lru_cache.h"

namespace pacml::gpu {

class LearnedModel {
 public:
  // Validates metadata and tensors; throws InputError(where, ...) saying what
  // does not match (another kind, another feature schema, a missing tensor).
  LearnedModel(const inference::WeightsFile& weights, const std::string& where);
  static std::shared_ptr<const LearnedModel> load(const std::string& path);

  const nlohmann::json& metadata() const { return metadata_; }
  const Architecture& architecture() const { return network_.architecture(); }
  const Network& network() const { return network_; }
  const std::string& source() const { return source_; }

 private:
  nlohmann::json metadata_;
  std::string source_;
  Network network_;
};

nlohmann::json make_metadata(const Architecture& arch, const nlohmann::json& training,
                             const std::string& git_revision);

// Whether a weights file holds a pacml-gpu network (reads the metadata only).
bool is_gpu_weights(const inference::WeightsFile& weights);

// Everything the network saw and said for one decision.
struct LearnedDecision {
  DecisionFeatures features;
  std::vector<float> embedding;
  std::vector<float> logits;  // one per candidate
  float value = 0;
  int action = 0;  // index into features.gpus
  // What choose_gpus returns (gpus_for_action).
  int gpus() const { return gpus_for_action(features, action); }
};

class LearnedPolicy {
 public:
  // sample: draw from the softmax over the candidates with the caller's RNG
  // instead of taking the best.
  LearnedPolicy(std::shared_ptr<const LearnedModel> model, bool sample = false);
  // Not copyable: it remembers an entry of its own cache.
  LearnedPolicy(const LearnedPolicy&) = delete;
  LearnedPolicy& operator=(const LearnedPolicy&) = delete;

  LearnedDecision decide(const DecisionInput& input, Rng& rng);
  // What decide(input, rng).gpus() returns, drawing the same numbers from
  // `rng`, without what only a trainer reads (the value, copies of the
  // inputs): the replay's and the Slurm plugin's path.
  int choose(const DecisionInput& input, Rng& rng);
  // The job's graph embedding, cached per model (ParallelJob::key) in an LRU
  // of kEmbeddingCacheBytes; zeros when the input names no job. Valid until
  // the next call. Not thread-safe: one policy per thread.
  const std::vector<float>& embedding(const ParallelJob* job) { return embedded(job).embedding; }

  const LearnedModel& model() const { return *model_; }

 private:
  // The embedding with act1's sums over it (JobEmbedding), as embedding().
  const JobEmbedding& embedded(const ParallelJob* job);
  // The action for `logits`: the best, or a draw from their softmax.
  int pick(const std::vector<float>& logits, Rng& rng) const;

  std::shared_ptr<const LearnedModel> model_;
  bool sample_;
  static constexpr std::size_t kEmbeddingCacheBytes = 16u << 20;
  LruCache<JobEmbedding> cache_{kEmbeddingCacheBytes};
  JobEmbedding zeros_, oversized_;
  // The embedding found last, the cache's most recently used (valid until
  // the next insert), kept with its job's serial so that a job decided again
  // is not hashed again.
  const JobEmbedding* last_ = nullptr;
  std::uint64_t last_serial_ = 0;  // ParallelJob::serial() of last_'s job
  // choose()'s buffers, kept so that a decision reuses their memory.
  DecisionFeatures features_;
  std::vector<float> logits_;
};

// "pacml:NAME" → a Policy (kind kChooser) deciding with the model resolved
// as inference::make_learned_policy resolves names (core/inference/
// learned_policy.h); a "?sample" suffix samples. Throws InputError(where, ...)
// for a missing file or a file that is not a pacml-gpu model (a paper-world
// model says so).
Policy make_learned_policy(const std::string& name, const std::string& where,
                           const std::vector<std::string>& search_dirs = {});

}  // namespace pacml::gpu
