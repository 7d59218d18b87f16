// The learned PAC-ML policy as a pacml::Policy: encode the arriving job
// (core/features), run the Eigen network, take the best feasible action.
//
// Use it through the policy name "pacml:PATH" (make_learned_policy), wherever
// a baseline name is accepted. Per-graph work (node/edge features, message
// passing) is cached by graph fingerprint, so a decision for a graph seen
// before costs only the graph module and the heads. The cache forgets the
// least recently used graphs beyond kGraphCacheBytes, so a stream of
// distinct graphs (Slurm users') cannot grow it without bound.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/inference/learned_model.h"
#include "core/policy/policy.h"
#include "core/util/lru_cache.h"

namespace pacml::inference {

// Everything the network saw and said for one decision.
struct Decision {
  features::GraphInputs inputs{};
  std::vector<float> logits;
  float value = 0;
  int action = 0;
};

class LearnedPolicy : public Policy {
 public:
  // sample: draw from the masked softmax with the context's RNG instead of
  // taking the greedy (arg-max) action.
  LearnedPolicy(std::shared_ptr<const LearnedModel> model, std::string name, bool sample = false);

  std::string name() const override { return name_; }
  int choose(const DecisionContext& context) override;
  // Like choose, with the inputs and outputs. Throws InputError if the
  // estimator's profile is not the one the model was trained in.
  Decision decide(const DecisionContext& context);
  // The network's part alone, given the actions' outlook
  // (features::action_outlook of the context), which costs one estimate per
  // valid action; benchmarks time the two parts apart.
  Decision decide(const DecisionContext& context, const features::ActionOutlook& outlook);

  const LearnedModel& model() const { return *model_; }
  const std::shared_ptr<const LearnedModel>& model_ptr() const { return model_; }

 private:
  struct GraphEntry {
    features::JobFeatures features;
    std::vector<float> embedding;
  };
  const GraphEntry& entry(const JobGraph& job, EdgeSizeRule rule);

  std::shared_ptr<const LearnedModel> model_;
  std::string name_;
  bool sample_;
  bool profile_checked_ = false;
  static constexpr std::size_t kGraphCacheBytes = 64u << 20;
  LruCache<GraphEntry> cache_{kGraphCacheBytes};
  GraphEntry oversized_;  // entry() returns a reference, valid until the next call
};

// "pacml:PATH" (or PATH) → a greedy LearnedPolicy; "pacml:PATH?sample" samples.
// PATH "default" (or a bare name without '/' or ".pacw" that is not a file)
// is looked up as NAME.pacw in $PACML_MODELS_DIR, then in the directories
// given by `search_dirs`. Loaded files are cached (by path, size and mtime).
// Throws InputError(where, ...) for unreadable or mismatched files.
PolicyPtr make_learned_policy(const std::string& name, const std::string& where,
                              const std::vector<std::string>& search_dirs = {});

// The path make_learned_policy would load for `name` (without loading it).
std::string resolve_model_path(const std::string& name, const std::string& where,
                               const std::vector<std::string>& search_dirs = {});

}  // namespace pacml::inference
