// The graph half of both learned networks (doc/LEARNING.md §4): message
// passing over a job's step graph, then the mean over nodes. The paper-world
// network (network.h) and the GPU network (core/gpu/network.h) share it, with the
// same tensor names (mp.L.*), so one trainer module serves both.
//
// Message-passing layer l (d_in → d_out):
//   node module   LayerNorm(d_in) → Linear(d_in, W) → ReLU        mp.l.node_ln / mp.l.node_fc
//   edge module   LayerNorm(2) → Linear(2, W) → ReLU              mp.l.edge_ln / mp.l.edge_fc
//   message u→v   [node(h_u) ‖ edge(e_uv)]; every node also sends itself [node(h_v) ‖ 0]
//   reduce        LayerNorm(2W) → Linear(2W, d_out) → ReLU on each message, mean per receiver
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/features/features.h"
#include "core/inference/weights_file.h"

namespace pacml::inference {

using TensorShapes = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

// A LayerNorm's (weight, bias) and a Linear's (weight out × in, bias) shapes,
// named PREFIX.weight / PREFIX.bias as LibTorch names them.
void append_layer_norm_shape(TensorShapes& out, const std::string& prefix, int d);
void append_linear_shape(TensorShapes& out, const std::string& prefix, int in, int out_dim);

struct MessagePassingShape {
  int node_in = 5, edge_in = 2, module_width = 16;
  std::vector<int> layers{64, 16};
  double layer_norm_eps = 1e-5;
  int embedding() const { return layers.empty() ? node_in : layers.back(); }
  void append_tensor_shapes(TensorShapes& out) const;
};

// Shapes checked against `shapes` (the whole network's), with messages that
// name the tensor; throws InputError(where, ...).
class TensorReader {
 public:
  TensorReader(const WeightsFile& weights, const TensorShapes& shapes, std::string where,
               const std::string& kind);
  const NamedTensor& tensor(const std::string& name) const;

 private:
  const WeightsFile& weights_;
  const TensorShapes& shapes_;
  std::string where_;
};

class MessagePassing {
 public:
  MessagePassing(const MessagePassingShape& shape, const TensorReader& reader);
  ~MessagePassing();
  MessagePassing(MessagePassing&&) noexcept;
  MessagePassing& operator=(MessagePassing&&) noexcept;
  // shape().embedding() floats; zeros for an empty graph.
  std::vector<float> embed(const features::JobFeatures& job) const;
  const MessagePassingShape& shape() const { return shape_; }

 private:
  struct Impl;
  MessagePassingShape shape_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pacml::inference
