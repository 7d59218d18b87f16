// The PAC-ML network in LibTorch, for training. The only header of model/
// that mentions the network; LibTorch itself stays inside torch_network.cpp
// (pimpl), so everything else compiles in seconds.
//
// Batches use the fact that node and edge features depend only on the job
// graph: a batch carries its few distinct graphs once (GraphSet), message
// passing runs once per distinct graph, and each step refers to its graph by
// index.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/features/features.h"
#include "core/inference/architecture.h"
#include "core/inference/weights_file.h"
#include "core/policy/policy.h"

namespace pacml::model {

// PPO's settings, plain data in core (core/config/train_config.h), so that
// the pacml command lists their defaults without LibTorch.
using pacml::PpoParams;

// The distinct job graphs of a batch.
struct GraphSet {
  std::vector<features::JobFeatures> graphs;
};

// Steps for a forward pass or a PPO update.
struct StepBatch {
  std::vector<int> graph;     // per step: index into GraphSet::graphs
  std::vector<float> inputs;  // steps × kGraphInputs (mask last)
  std::vector<int> actions;   // per step (PPO only)
  std::vector<float> old_logp, advantages, returns, old_values;  // PPO only
  // kSearchValues only: steps × kNumActions, the teacher's estimated return
  // of each feasible action (other entries are ignored).
  std::vector<float> action_values;
  size_t size() const { return graph.size(); }
};

struct PpoStats {
  double policy_loss = 0, value_loss = 0, entropy = 0, approx_kl = 0, clip_fraction = 0;
  int gradient_steps = 0;
};

class TorchNetwork {
 public:
  // Fresh parameters from `seed` (LibTorch's default initialisation). Sets
  // LibTorch to one intra-op thread.
  TorchNetwork(const inference::Architecture& arch, std::uint64_t seed, double lr = 2.785e-4);
  ~TorchNetwork();
  TorchNetwork(const TorchNetwork&) = delete;
  TorchNetwork& operator=(const TorchNetwork&) = delete;

  const inference::Architecture& architecture() const;

  // Tensors named as in Architecture::tensor_shapes(), with `metadata`.
  inference::WeightsFile export_weights(const nlohmann::json& metadata) const;
  // Copies parameters from a weights file (shapes checked; InputError).
  void import_weights(const inference::WeightsFile& weights, const std::string& where);

  // No-grad forward: logits (steps × actions, masked) and values (steps).
  void forward(const GraphSet& graphs, const StepBatch& batch, std::vector<float>& logits,
               std::vector<float>& values) const;
  // log π(action) for each step and the values (no grad), for PPO's old policy.
  void evaluate_actions(const GraphSet& graphs, const StepBatch& batch, std::vector<float>& logp,
                        std::vector<float>& values) const;

  // `params.epochs` passes over `batch` in minibatches shuffled by `rng`.
  // kPpo: the clipped PPO surrogate on the advantages. kImitation: behaviour
  // cloning, the cross-entropy of the batch's (teacher's) actions.
  // kSearchValues: the logits of the feasible actions, centred, regress the
  // teacher's centred action values / temperature, so that the arg-max is the
  // action with the highest expected value, the noise of single estimates
  // averaged out over similar states. The value and entropy terms are the
  // same in all three.
  enum class Objective { kPpo, kImitation, kSearchValues };
  PpoStats ppo_update(const GraphSet& graphs, const StepBatch& batch, const PpoParams& params,
                      Rng& rng, Objective objective = Objective::kPpo);
  void set_learning_rate(double lr);

  // Trainer checkpoints (parameters + Adam state), LibTorch's own format.
  void save_optimizer(const std::string& path) const;
  void load_optimizer(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacml::model
