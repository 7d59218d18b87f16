// The learned GPU policy's network in LibTorch, for training: the function
// of core/gpu/network.h (message passing over the job's graph,
// then one scorer for every candidate action and a value head), with its
// tensor names and shapes (Architecture::tensor_shapes()). LibTorch stays
// inside torch_network.cpp (pimpl).
//
// A batch holds decisions with 1..kMaxStartActions+1 candidates each; they
// are padded to the widest and the padding masked, so the softmax of a
// decision runs over its own candidates only. Message passing runs once per
// distinct graph of a minibatch: embeddings depend only on the model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/gpu_train_config.h"
#include "core/features/features.h"
#include "core/gpu/features.h"
#include "core/gpu/network.h"
#include "core/inference/weights_file.h"
#include "core/policy/policy.h"

namespace pacml::gpu {

// Decisions for a forward pass or a training pass.
struct DecisionBatch {
  static constexpr int kStateScalars = kJobScalars + kContextScalars;
  static constexpr int kMaxActions = kMaxStartActions + 1;

  std::vector<int> graph;     // per decision: index into the graph list
  std::vector<int> actions;   // per decision: its number of candidates (1..kMaxActions)
  std::vector<float> state;   // decisions × kStateScalars: job scalars, then context
  std::vector<float> action;  // decisions × kMaxActions × kActionScalars (zero padded)
  std::vector<int> label;     // per decision: the teacher's candidate index (training)
  std::vector<float> target;  // per decision: the value head's target (training)

  size_t size() const { return graph.size(); }
  // Appends one decision (labelled `label` with value target `target`).
  void add(int graph_index, const DecisionFeatures& f, int label = 0, float target = 0);
  // Appends decision `k` of `other`.
  void add_from(const DecisionBatch& other, size_t k);
};

struct TrainStats {
  double loss = 0;        // mean cross-entropy over the minibatches of the last epoch
  double value_loss = 0;  // mean squared error of the value head, last epoch
  double accuracy = 0;    // arg-max = label, share of the decisions in the last epoch
  int gradient_steps = 0;
};

class TorchNetwork {
 public:
  // Fresh parameters from `seed` (LibTorch's default initialisation). Sets
  // LibTorch to one intra-op thread.
  TorchNetwork(const Architecture& arch, std::uint64_t seed, double lr = 1e-3);
  ~TorchNetwork();
  TorchNetwork(const TorchNetwork&) = delete;
  TorchNetwork& operator=(const TorchNetwork&) = delete;

  const Architecture& architecture() const;

  // Tensors named and ordered as Architecture::tensor_shapes(), with `metadata`
  // (make_metadata).
  inference::WeightsFile export_weights(const nlohmann::json& metadata) const;
  // Copies parameters from a weights file (shapes checked; InputError).
  void import_weights(const inference::WeightsFile& weights, const std::string& where);

  // No-grad forward: per decision its candidates' logits (batch.actions[k]
  // of them, concatenated) and its value.
  void forward(const std::vector<features::JobFeatures>& graphs, const DecisionBatch& batch,
               std::vector<float>& logits, std::vector<float>& values) const;

  // `params.epochs` passes over `batch` in minibatches shuffled by `rng`:
  // cross-entropy of the labels over each decision's candidates, plus
  // value_coef × the squared error of the value against the targets; Adam.
  TrainStats train(const std::vector<features::JobFeatures>& graphs, const DecisionBatch& batch,
                   const TrainParams& params, Rng& rng);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacml::gpu
