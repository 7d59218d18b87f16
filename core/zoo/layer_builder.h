// A small builder for forward layer graphs with shape tracking.
//
// Model definitions (cnn_models.cpp, transformer_models.cpp, rnn_models.cpp)
// call one method per PyTorch module application, in execution order. Each
// call adds one layer, connects it to the layers that produced its inputs,
// works out the output shape, the parameter count, the FLOPs and bytes moved,
// and costs the forward and backward pass with op_cost.h. The layers therefore
// come out in a topological order, and the graph mirrors the model's real data
// flow (residual adds, concatenated branches, attention).
//
// Shapes: images are {N, C, H, W}; sequences are {N, T, D} (batch first, a
// logical layout only); token ids are {N, T}; attention scores {N, heads, T, S}.
// Views (flatten, reshape) are not kernels and therefore not layers: they only
// change a Tensor's shape.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/zoo/device_model.h"
#include "core/zoo/op_cost.h"
#include "core/zoo/precision.h"

namespace pacml {
namespace zoo {

// A value flowing between layers: the layer that produced it and its shape.
struct Tensor {
  int layer = -1;
  std::vector<long> shape;
  double elements() const;
};

// Convolution hyper-parameters (torchvision naming). Kernel, stride and
// padding are {height, width}.
struct Conv2dSpec {
  long out_channels = 0;
  long kernel_h = 1, kernel_w = 1;
  long stride_h = 1, stride_w = 1;
  long pad_h = 0, pad_w = 0;
  long groups = 1;
  bool bias = true;
};

// Square kernel shorthand: conv_spec(64, 3, 1, 1) = 3x3, stride 1, padding 1.
Conv2dSpec conv_spec(long out_channels, long kernel, long stride = 1, long pad = 0,
                     bool bias = true);
// Rectangular kernel: {kernel_h, kernel_w}, {stride_h, stride_w}, {pad_h, pad_w}.
Conv2dSpec rect_conv_spec(long out_channels, long kernel_h, long kernel_w, long stride_h,
                          long stride_w, long pad_h, long pad_w, bool bias = true);

struct Pool2dSpec {
  long kernel = 1;
  long stride = 1;
  long pad = 0;
  bool ceil_mode = false;
};

// Whether a layer owns its weights or uses ones counted elsewhere (tied
// embeddings: GPT-2's output layer, GNMT's shared embedding).
enum class Weights { kOwn, kShared };

class LayerBuilder {
 public:
  LayerBuilder(std::string model_name, Precision precision, DeviceModel device);

  // A data source (images, spectrograms, token ids). It costs nothing: pacml
  // does not model data loading (PipeDream's "Input" times are the loader's).
  // Token ids are int64 whatever the precision.
  enum class InputKind { kValues, kTokenIds };
  Tensor input(const std::string& name, std::vector<long> shape, InputKind kind,
               const std::string& label);

  // ---- convolutional layers (image tensors) ----
  Tensor conv2d(const std::string& name, const Tensor& x, const Conv2dSpec& spec);
  Tensor max_pool(const std::string& name, const Tensor& x, const Pool2dSpec& spec);
  Tensor avg_pool(const std::string& name, const Tensor& x, const Pool2dSpec& spec);
  Tensor adaptive_avg_pool(const std::string& name, const Tensor& x, long out_h, long out_w);

  // ---- dense and sequence layers (operate on the last dimension) ----
  Tensor linear(const std::string& name, const Tensor& x, long out_features, bool bias = true,
                Weights weights = Weights::kOwn);
  // ids {N, T} -> {N, T, dim}.
  Tensor embedding(const std::string& name, const Tensor& ids, long vocab, long dim,
                   Weights weights = Weights::kOwn);
  // {N, T, I} -> {N, T, dirs * hidden}; PyTorch nn.LSTM (two bias vectors).
  Tensor lstm(const std::string& name, const Tensor& x, long hidden, bool bidirectional);

  // ---- attention (layer_builder_attention.cpp) ----
  // q {N, T, D}, k {N, S, D} -> scores {N, heads, T, S} (q k^T per head).
  Tensor attention_scores(const std::string& name, const Tensor& q, const Tensor& k, long heads);
  // probs {N, heads, T, S}, v {N, S, D} -> {N, T, D}.
  Tensor attention_context(const std::string& name, const Tensor& probs, const Tensor& v);
  // One fused scaled-dot-product attention kernel (flash / memory-efficient):
  // q {N, T, D}, k and v {N, S, D_kv} -> {N, T, D}. D_kv = kv_heads * D / heads
  // (grouped-query attention: kv_heads divides heads). Causal masking halves
  // the FLOPs (the kernel skips the masked blocks). No score matrix is kept:
  // the layer's activation is its output plus the per-row logsumexp (fp32).
  Tensor fused_attention(const std::string& name, const Tensor& q, const Tensor& k, const Tensor& v,
                         long heads, bool causal);
  // Eager grouped-query attention copies each k/v head `groups` times
  // (Hugging Face's repeat_kv): {N, S, D_kv} -> {N, S, groups * D_kv}.
  Tensor repeat_kv(const std::string& name, const Tensor& x, long groups);
  // Rotary position embedding applied to q or k ({N, T, D}, heads of
  // head_dim): x cos + rotate_half(x) sin. No parameters, no position table.
  Tensor rotary(const std::string& name, const Tensor& x, long head_dim);
  // Bahdanau (additive) scores v . tanh(q_t + k_s) with learned v and bias:
  // q {N, T, H}, k {N, S, H} -> {N, T, S}. Materialises the {N, T, S, H} sum.
  Tensor additive_attention_scores(const std::string& name, const Tensor& q, const Tensor& k);

  // ---- normalisation, activations, element-wise ----
  Tensor batch_norm(const std::string& name, const Tensor& x);  // over dim 1 of images, else last
  // Over the last dim; affine = false: no weight and bias (DiT's norms).
  Tensor layer_norm(const std::string& name, const Tensor& x, bool affine = true);
  Tensor rms_norm(const std::string& name, const Tensor& x);  // weight only (Llama)
  Tensor relu(const std::string& name, const Tensor& x);
  Tensor gelu(const std::string& name, const Tensor& x);
  Tensor silu(const std::string& name, const Tensor& x);
  Tensor tanh(const std::string& name, const Tensor& x);
  Tensor hardtanh(const std::string& name, const Tensor& x);  // DeepSpeech2's clipped ReLU
  Tensor dropout(const std::string& name, const Tensor& x, double p);
  Tensor softmax(const std::string& name, const Tensor& x);  // over the last dim
  Tensor add(const std::string& name, const std::vector<Tensor>& xs);
  Tensor multiply(const std::string& name, const std::vector<Tensor>& xs);  // SwiGLU's gate * up
  // Element-wise op on xs ({N, T, D}, equal shapes) with a per-sample
  // `condition` {N, 1, C} broadcast over T (DiT's adaLN shift/scale and gate).
  Tensor conditioned(const std::string& name, const std::vector<Tensor>& xs,
                     const Tensor& condition, double flops_per_element, const std::string& label);
  Tensor concat(const std::string& name, const std::vector<Tensor>& xs, int axis);
  // Sums the two directions of a bidirectional RNN output: {N, T, 2H} -> {N, T, H}.
  Tensor sum_directions(const std::string& name, const Tensor& x);

  // ---- token sequences of image models (ViT, DiT) ----
  // Prepends `count` learned tokens (ViT's class token): {N, T, D} -> {N, T + count, D}.
  Tensor prepend_tokens(const std::string& name, const Tensor& x, long count);
  // Adds a {T, D} position table: learned (a parameter) or fixed (a buffer).
  Tensor add_positions(const std::string& name, const Tensor& x, bool learned);
  // Sinusoidal features of a per-sample scalar (DiT's timestep): {N, 1} -> {N, 1, dim}.
  Tensor sinusoidal_embedding(const std::string& name, const Tensor& t, long dim);

  // The training loss over one or more logit tensors: a scalar.
  Tensor loss(const std::string& name, const std::vector<Tensor>& logits, const std::string& label);

  // ---- views: shape changes only, no layer ----
  static Tensor flatten(const Tensor& x);  // {N, ...} -> {N, prod(...)}

  // Finishes the graph with `output` as its output layer and validates it.
  LayerGraph finish(const Tensor& output) const;

  // Parameters owned by the layers so far (shared weights counted once).
  double parameter_count() const { return parameters_; }

 private:
  // Everything add_layer needs to make one layer.
  struct LayerSpec {
    std::string name;
    std::string label;
    std::vector<Tensor> inputs;
    std::vector<long> shape;       // output
    double parameters = 0;         // owned parameters (count)
    OpWork work;                   // forward work; work.bytes is filled in by the op
    double saved_extra_bytes = 0;  // kept for backward besides the output (logsumexp)
  };

  // Model definitions are code: a shape mismatch there is a bug, not bad input.
  static void expect(bool condition, const std::string& layer, const std::string& what);

  Tensor add_layer(LayerSpec spec);
  Tensor pointwise(const std::string& name, const Tensor& x, OpKind kind, double flops_per_element,
                   const std::string& label);
  Tensor pool(const std::string& name, const Tensor& x, const Pool2dSpec& spec, bool max);
  Tensor combine(const std::string& name, const std::vector<Tensor>& xs, const std::string& label);
  double bytes(const Tensor& x) const { return x.elements() * element_bytes_; }
  double bytes_of_shape(const std::vector<long>& shape) const;

  std::string model_name_;
  Precision precision_;
  DeviceModel device_;
  double element_bytes_;
  LayerGraph graph_;
  std::map<std::string, int> names_;
  double parameters_ = 0;
};

}  // namespace zoo
}  // namespace pacml
