// The learned GPU policy's network (doc/LEARNING.md §7), in plain C++ for
// the simulator, the trainer's rollouts and the Slurm plugin; the trainer
// (model/gpu/torch_network.h) computes the same function in LibTorch.
//
// Shape ("kind": "pacml-gpu"):
//   embedding e   message passing over the job's step graph (message_passing.h),
//                 mean over nodes: E = layers.back() floats, cached per model
//   state s       [e ‖ job scalars (9) ‖ context scalars (7)]  (features.h)
//   action a      [s ‖ the action's scalars (8)] → act1 (Linear, H) → ReLU
//                 → act2 (Linear H→H) → ReLU → act3 (Linear H→1): its logit
//   value         s → val1 (Linear, H) → ReLU → val2 (Linear H→1)
// One scorer for every action, so the same weights decide with any number
// of candidates on any cluster size.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu/features.h"
#include "core/inference/message_passing.h"

namespace pacml::gpu {

struct Architecture {
  static constexpr const char* kKind = "pacml-gpu";
  inference::MessagePassingShape graph{5, 2, 16, {32, 16}, 1e-5};
  int hidden = 32;  // H

  int state_in() const { return graph.embedding() + kJobScalars + kContextScalars; }
  int action_in() const { return state_in() + kActionScalars; }

  nlohmann::json to_json() const;
  // Throws InputError(where, ...) for another kind or bad sizes.
  static Architecture from_json(const nlohmann::json& j, const std::string& where);
  // Every tensor (name, shape) in a fixed order: mp.*, act1..3, val1..2.
  inference::TensorShapes tensor_shapes() const;
};

// A job's graph as the network reads it, cached per model by the policy:
// the embedding, and act1's sums over it, the first terms of the sums of
// every decision about the job (Network::score continues them).
struct JobEmbedding {
  std::vector<float> embedding;
  std::vector<float> act1_prefix;  // act1's H outputs, before the bias
};

class Network {
 public:
  Network(const Architecture& arch, const inference::WeightsFile& weights,
          const std::string& where);
  ~Network();
  Network(Network&&) noexcept;
  Network& operator=(Network&&) noexcept;

  const Architecture& architecture() const;
  std::vector<float> embed(const features::JobFeatures& job) const;
  // An embedding with act1's sums over it.
  JobEmbedding with_prefix(std::vector<float> embedding) const;
  // One logit per candidate action of `decision`, and the state's value.
  // Allocates nothing once warm (per-thread buffers); `value` may be null.
  void score(const JobEmbedding& job, const DecisionFeatures& decision, std::vector<float>& logits,
             float* value) const;
  // The same for a bare embedding (its act1 sums computed here).
  void score(const std::vector<float>& embedding, const DecisionFeatures& decision,
             std::vector<float>& logits, float* value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacml::gpu
