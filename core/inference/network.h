// The learned policy's forward pass in plain C++ (Eigen, no LibTorch), used
// by the simulator, the trainer's rollout workers and the Slurm plugin.
// Numerically the same computation as model/torch_network.cpp (a test checks
// agreement to 1e-5).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/features/features.h"
#include "core/inference/architecture.h"
#include "core/inference/weights_file.h"

namespace pacml::inference {

class Network {
 public:
  // Copies the tensors of `arch` out of `weights`; throws InputError(where, ...)
  // naming a missing, extra or mis-shaped tensor.
  Network(const Architecture& arch, const WeightsFile& weights, const std::string& where);
  ~Network();
  Network(Network&&) noexcept;
  Network& operator=(Network&&) noexcept;

  const Architecture& architecture() const;

  // The job embedding (architecture().embedding() floats): message passing
  // over the job's step graph, then the mean over nodes. Depends only on the
  // graph, so callers cache it per graph.
  std::vector<float> embed(const features::JobFeatures& job) const;

  // Policy logits (masked actions get architecture().mask_logit; the mask is
  // the last `actions` graph inputs) and the value estimate.
  void heads(const float* embedding, const float* graph_inputs, float* logits, float* value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Index of the largest logit among unmasked actions (lowest index on ties);
// 0 if nothing is unmasked.
int greedy_action(const float* logits, const std::vector<bool>& mask);
// Softmax probabilities over unmasked actions (masked ones get 0).
std::vector<double> masked_softmax(const float* logits, const std::vector<bool>& mask);

}  // namespace pacml::inference
