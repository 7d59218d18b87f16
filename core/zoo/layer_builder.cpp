#include "core/zoo/layer_builder.h"

#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/util/error.h"

namespace pacml {
namespace zoo {
namespace {

constexpr double kTokenIdBytes = 8;      // int64
constexpr double kDropoutMaskBytes = 1;  // PyTorch keeps a bool mask for backward

// Output length of a sliding window (PyTorch's rule); 0 when it does not fit.
long window_output(long in, long kernel, long stride, long pad, bool ceil_mode) {
  const long span = in + 2 * pad - kernel;
  if (span < 0) return 0;
  long out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // With ceil_mode the last window must still start inside the input.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

std::string shape_text(const std::vector<long>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string pair_text(long a, long b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

std::string conv_label(long in_channels, const Conv2dSpec& c) {
  std::ostringstream out;
  out << "Conv2d(" << in_channels << ", " << c.out_channels
      << ", kernel_size=" << pair_text(c.kernel_h, c.kernel_w)
      << ", stride=" << pair_text(c.stride_h, c.stride_w);
  if (c.pad_h || c.pad_w) out << ", padding=" << pair_text(c.pad_h, c.pad_w);
  if (c.groups != 1) out << ", groups=" << c.groups;
  if (!c.bias) out << ", bias=False";
  out << ")";
  return out.str();
}

// cuDNN runs dense 3x3 stride-1 convolutions with Winograd F(2x2, 3x3), which
// needs 2.25x fewer multiplications than the direct method: 16 instead of 36
// per 2x2 output tile. (PipeDream's V100 profile reaches up to 2x the V100's
// fp32 peak on such layers if counted directly.)
double winograd_saving(const Conv2dSpec& c) {
  const bool winograd =
      c.kernel_h == 3 && c.kernel_w == 3 && c.stride_h == 1 && c.stride_w == 1 && c.groups == 1;
  return winograd ? 2.25 : 1.0;
}

}  // namespace

void LayerBuilder::expect(bool condition, const std::string& layer, const std::string& what) {
  if (!condition) throw std::logic_error("zoo layer '" + layer + "': " + what);
}

double Tensor::elements() const {
  double n = 1;
  for (long d : shape) n *= static_cast<double>(d);
  return n;
}

Conv2dSpec conv_spec(long out_channels, long kernel, long stride, long pad, bool bias) {
  return rect_conv_spec(out_channels, kernel, kernel, stride, stride, pad, pad, bias);
}

Conv2dSpec rect_conv_spec(long out_channels, long kernel_h, long kernel_w, long stride_h,
                          long stride_w, long pad_h, long pad_w, bool bias) {
  Conv2dSpec spec;
  spec.out_channels = out_channels;
  spec.kernel_h = kernel_h;
  spec.kernel_w = kernel_w;
  spec.stride_h = stride_h;
  spec.stride_w = stride_w;
  spec.pad_h = pad_h;
  spec.pad_w = pad_w;
  spec.bias = bias;
  return spec;
}

LayerBuilder::LayerBuilder(std::string model_name, Precision precision, DeviceModel device)
    : model_name_(std::move(model_name)),
      precision_(precision),
      device_(std::move(device)),
      element_bytes_(bytes_per_element(precision)) {
  device_.peak(precision_);  // fail now, with a clear message, if the device lacks it
  graph_.model_name = model_name_;
}

double LayerBuilder::bytes_of_shape(const std::vector<long>& shape) const {
  return Tensor{-1, shape}.elements() * element_bytes_;
}

Tensor LayerBuilder::add_layer(LayerSpec spec) {
  expect(!names_.count(spec.name), spec.name, "layer name used twice");
  for (long d : spec.shape)
    if (d <= 0)
      throw InputError(model_name_, "the input is too small for this model: layer '" + spec.name +
                                        "' would have an empty output " + shape_text(spec.shape));
  Layer layer;
  layer.name = spec.name;
  layer.label = spec.label;
  layer.forward_time = op_time_ms(spec.work, device_, precision_);
  layer.backward_time = op_time_ms(backward_work(spec.work), device_, precision_);
  layer.activation_bytes = bytes_of_shape(spec.shape) + spec.saved_extra_bytes;
  layer.parameter_bytes = spec.parameters * element_bytes_;

  const int index = graph_.num_layers();
  graph_.layers.push_back(std::move(layer));
  std::set<int> connected;  // two inputs from one layer (q and k of a fused qkv) = one edge
  for (const Tensor& in : spec.inputs) {
    expect(in.layer >= 0 && in.layer < index, spec.name, "input from a layer not built yet");
    if (connected.insert(in.layer).second) graph_.edges.push_back({in.layer, index});
  }
  names_[spec.name] = index;
  parameters_ += spec.parameters;
  return Tensor{index, std::move(spec.shape)};
}

Tensor LayerBuilder::input(const std::string& name, std::vector<long> shape, InputKind kind,
                           const std::string& label) {
  LayerSpec spec;
  spec.name = name;
  spec.label = label;
  spec.shape = std::move(shape);
  spec.work.kernels = 0;  // no device work at all
  Tensor t = add_layer(std::move(spec));
  if (kind == InputKind::kTokenIds)
    graph_.layers[t.layer].activation_bytes = t.elements() * kTokenIdBytes;
  return t;
}

Tensor LayerBuilder::conv2d(const std::string& name, const Tensor& x, const Conv2dSpec& c) {
  expect(x.shape.size() == 4, name, "conv2d needs an image tensor {N, C, H, W}");
  const long in_channels = x.shape[1];
  expect(in_channels % c.groups == 0 && c.out_channels % c.groups == 0, name, "bad groups");
  LayerSpec spec;
  spec.name = name;
  spec.label = conv_label(in_channels, c);
  spec.inputs = {x};
  spec.shape = {x.shape[0], c.out_channels,
                window_output(x.shape[2], c.kernel_h, c.stride_h, c.pad_h, false),
                window_output(x.shape[3], c.kernel_w, c.stride_w, c.pad_w, false)};
  const double fan_in = static_cast<double>(in_channels / c.groups) * c.kernel_h * c.kernel_w;
  spec.parameters = c.out_channels * fan_in + (c.bias ? c.out_channels : 0);
  spec.work.kind = OpKind::kConv;
  spec.work.flops = 2 * fan_in * Tensor{-1, spec.shape}.elements() / winograd_saving(c);
  spec.work.weight_bytes = spec.parameters * element_bytes_;
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape) + spec.work.weight_bytes;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::pool(const std::string& name, const Tensor& x, const Pool2dSpec& p, bool max) {
  expect(x.shape.size() == 4, name, "pooling needs an image tensor {N, C, H, W}");
  LayerSpec spec;
  spec.name = name;
  spec.label = std::string(max ? "MaxPool2d" : "AvgPool2d") +
               "(kernel_size=" + std::to_string(p.kernel) + ", stride=" + std::to_string(p.stride) +
               ", padding=" + std::to_string(p.pad) + (p.ceil_mode ? ", ceil_mode=True" : "") + ")";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1],
                window_output(x.shape[2], p.kernel, p.stride, p.pad, p.ceil_mode),
                window_output(x.shape[3], p.kernel, p.stride, p.pad, p.ceil_mode)};
  spec.work.kind = OpKind::kPool;
  spec.work.flops = Tensor{-1, spec.shape}.elements() * p.kernel * p.kernel;
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::max_pool(const std::string& name, const Tensor& x, const Pool2dSpec& spec) {
  return pool(name, x, spec, true);
}

Tensor LayerBuilder::avg_pool(const std::string& name, const Tensor& x, const Pool2dSpec& spec) {
  return pool(name, x, spec, false);
}

Tensor LayerBuilder::adaptive_avg_pool(const std::string& name, const Tensor& x, long out_h,
                                       long out_w) {
  expect(x.shape.size() == 4, name, "pooling needs an image tensor {N, C, H, W}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "AdaptiveAvgPool2d(output_size=" + pair_text(out_h, out_w) + ")";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1], out_h, out_w};
  spec.work.kind = OpKind::kPool;
  spec.work.flops = x.elements();
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::linear(const std::string& name, const Tensor& x, long out_features, bool bias,
                            Weights weights) {
  expect(x.shape.size() >= 2, name, "linear needs {N, ..., features}");
  const long in_features = x.shape.back();
  LayerSpec spec;
  spec.name = name;
  spec.label = "Linear(in_features=" + std::to_string(in_features) +
               ", out_features=" + std::to_string(out_features) +
               ", bias=" + (bias ? "True" : "False") + ")" +
               (weights == Weights::kShared ? " [weight tied]" : "");
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.shape.back() = out_features;
  const double matrix = static_cast<double>(in_features) * out_features;
  const double bias_count = bias ? out_features : 0;
  spec.parameters = (weights == Weights::kOwn ? matrix : 0) + bias_count;
  spec.work.kind = OpKind::kLinear;
  spec.work.flops = 2 * matrix * (x.elements() / in_features);
  spec.work.weight_bytes = (matrix + bias_count) * element_bytes_;
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape) + spec.work.weight_bytes;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::embedding(const std::string& name, const Tensor& ids, long vocab, long dim,
                               Weights weights) {
  expect(ids.shape.size() == 2, name, "embedding needs token ids {N, T}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "Embedding(" + std::to_string(vocab) + ", " + std::to_string(dim) + ")" +
               (weights == Weights::kShared ? " [weight shared]" : "");
  spec.inputs = {ids};
  spec.shape = {ids.shape[0], ids.shape[1], dim};
  const double table = static_cast<double>(vocab) * dim;
  spec.parameters = weights == Weights::kOwn ? table : 0;
  spec.work.kind = OpKind::kEmbedding;
  const double out_bytes = bytes_of_shape(spec.shape);
  spec.work.flops = 0;  // a gather: pure data movement
  spec.work.weight_bytes = table * element_bytes_;
  // Reads the ids and one table row per token, writes the output.
  spec.work.bytes = ids.elements() * kTokenIdBytes + 2 * out_bytes;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::lstm(const std::string& name, const Tensor& x, long hidden,
                          bool bidirectional) {
  expect(x.shape.size() == 3, name, "lstm needs a sequence {N, T, D}");
  const long input_size = x.shape[2];
  const double steps = static_cast<double>(x.shape[0]) * x.shape[1];  // N * T
  const int dirs = bidirectional ? 2 : 1;
  const double h = static_cast<double>(hidden);
  LayerSpec spec;
  spec.name = name;
  spec.label = "LSTM(" + std::to_string(input_size) + ", " + std::to_string(hidden) +
               (bidirectional ? ", bidirectional=True" : "") + ")";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1], dirs * hidden};
  // Per direction: W_ih (4H x I), W_hh (4H x H) and two bias vectors (4H each).
  spec.parameters = dirs * (4 * h * (input_size + h) + 8 * h);
  spec.work.kind = OpKind::kLstm;
  // Per token and direction: the gate GEMMs (2 * 4H * (I + H)) plus ~12 flops
  // per hidden unit for the gate non-linearities and the cell update.
  spec.work.flops = dirs * steps * (8 * h * (input_size + h) + 12 * h);
  spec.work.weight_bytes = spec.parameters * element_bytes_;
  // The recurrent weights are read again at every time step: at H = 1024 they
  // do not fit in a V100's L2 cache.
  const double recurrent_reads = dirs * x.shape[1] * 4 * h * h * element_bytes_;
  spec.work.bytes =
      bytes(x) + bytes_of_shape(spec.shape) + spec.work.weight_bytes + recurrent_reads;
  // cuDNN runs the whole sequence from one call; its per-step kernels queue
  // back to back, so one launch overhead is what the host pays.
  spec.work.kernels = 1;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::additive_attention_scores(const std::string& name, const Tensor& q,
                                               const Tensor& k) {
  expect(q.shape.size() == 3 && k.shape.size() == 3 && q.shape[2] == k.shape[2], name,
         "additive attention needs q {N, T, H}, k {N, S, H}");
  const double hidden = static_cast<double>(q.shape[2]);
  LayerSpec spec;
  spec.name = name;
  spec.label = "BahdanauScores(" + std::to_string(q.shape[2]) + ")";
  spec.inputs = {q, k};
  spec.shape = {q.shape[0], q.shape[1], k.shape[1]};
  spec.parameters = 2 * hidden + 1;  // score vector v, normalisation bias and scalar
  const double pairs = Tensor{-1, spec.shape}.elements();
  spec.work.kind = OpKind::kMatmul;      // two activation operands: backward is 2x
  spec.work.flops = 4 * pairs * hidden;  // add, tanh, multiply-add with v
  spec.work.weight_bytes = spec.parameters * element_bytes_;
  // The broadcast sum q_t + k_s is materialised ({N, T, S, H}), written and read back.
  spec.work.bytes =
      bytes(q) + bytes(k) + bytes_of_shape(spec.shape) + 2 * pairs * hidden * element_bytes_;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::batch_norm(const std::string& name, const Tensor& x) {
  const bool image = x.shape.size() == 4;
  const long channels = image ? x.shape[1] : x.shape.back();
  LayerSpec spec;
  spec.name = name;
  spec.label =
      std::string(image ? "BatchNorm2d(" : "BatchNorm1d(") + std::to_string(channels) + ")";
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.parameters = 2.0 * channels;  // scale and shift (running stats are buffers)
  spec.work.kind = OpKind::kNorm;
  spec.work.flops = 8 * x.elements();
  // Training mode: one pass for the batch statistics, one to normalise.
  spec.work.bytes = 3 * bytes(x);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::layer_norm(const std::string& name, const Tensor& x, bool affine) {
  const long features = x.shape.back();
  LayerSpec spec;
  spec.name = name;
  spec.label =
      "LayerNorm(" + std::to_string(features) + (affine ? "" : ", elementwise_affine=False") + ")";
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.parameters = affine ? 2.0 * features : 0;
  spec.work.kind = OpKind::kNorm;
  spec.work.flops = 8 * x.elements();
  // A row fits on chip: statistics and normalisation in one read.
  spec.work.bytes = 2 * bytes(x);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::rms_norm(const std::string& name, const Tensor& x) {
  const long features = x.shape.back();
  LayerSpec spec;
  spec.name = name;
  spec.label = "RMSNorm(" + std::to_string(features) + ")";
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.parameters = static_cast<double>(features);  // a weight, no bias
  spec.work.kind = OpKind::kNorm;
  spec.work.flops = 4 * x.elements();  // square, mean, scale by rsqrt, weight
  spec.work.bytes = 2 * bytes(x);      // like layer norm: a row fits on chip
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::pointwise(const std::string& name, const Tensor& x, OpKind kind,
                               double flops_per_element, const std::string& label) {
  LayerSpec spec;
  spec.name = name;
  spec.label = label;
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.work.kind = kind;
  spec.work.flops = flops_per_element * x.elements();
  spec.work.bytes = 2 * bytes(x);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::relu(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kActivation, 1, "ReLU");
}

Tensor LayerBuilder::gelu(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kActivation, 10, "GELU");
}

// x * sigmoid(x): an exponential, an add, a division and a multiply.
Tensor LayerBuilder::silu(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kActivation, 5, "SiLU");
}

Tensor LayerBuilder::tanh(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kActivation, 5, "Tanh");
}

Tensor LayerBuilder::hardtanh(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kActivation, 2, "Hardtanh(min_val=0, max_val=20)");
}

Tensor LayerBuilder::softmax(const std::string& name, const Tensor& x) {
  return pointwise(name, x, OpKind::kSoftmax, 5, "Softmax(dim=-1)");
}

Tensor LayerBuilder::dropout(const std::string& name, const Tensor& x, double p) {
  std::ostringstream label;
  label << "Dropout(p=" << p << ")";
  LayerSpec spec;
  spec.name = name;
  spec.label = label.str();
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = 3 * x.elements();  // random number, compare, scale
  spec.work.bytes = 2 * bytes(x) + x.elements() * kDropoutMaskBytes;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::add(const std::string& name, const std::vector<Tensor>& xs) {
  return combine(name, xs, "Add");
}

Tensor LayerBuilder::multiply(const std::string& name, const std::vector<Tensor>& xs) {
  return combine(name, xs, "Mul");
}

// An element-wise op over equal-shaped inputs: one FLOP per element and input
// beyond the first; reads every input, writes one output.
Tensor LayerBuilder::combine(const std::string& name, const std::vector<Tensor>& xs,
                             const std::string& label) {
  expect(xs.size() >= 2, name, label + " needs two or more inputs");
  LayerSpec spec;
  spec.name = name;
  spec.label = label;
  spec.inputs = xs;
  spec.shape = xs[0].shape;
  double in_bytes = 0;
  for (const Tensor& x : xs) {
    expect(x.shape == spec.shape, name, label + " needs equal shapes");
    in_bytes += bytes(x);
  }
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = (xs.size() - 1) * xs[0].elements();
  spec.work.bytes = in_bytes + bytes(xs[0]);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::concat(const std::string& name, const std::vector<Tensor>& xs, int axis) {
  expect(xs.size() >= 2, name, "concat needs two or more inputs");
  LayerSpec spec;
  spec.name = name;
  spec.label = "Concat(" + std::to_string(axis) + ")";
  spec.inputs = xs;
  spec.shape = xs[0].shape;
  spec.shape[axis] = 0;
  for (const Tensor& x : xs) {
    expect(x.shape.size() == spec.shape.size(), name, "concat needs equal ranks");
    for (size_t d = 0; d < x.shape.size(); ++d)
      expect(static_cast<int>(d) == axis || x.shape[d] == xs[0].shape[d], name,
             "concat needs equal sizes off the axis");
    spec.shape[axis] += x.shape[axis];
  }
  spec.work.kind = OpKind::kElementwise;
  spec.work.bytes = 2 * bytes_of_shape(spec.shape);  // read every input, write the output
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::sum_directions(const std::string& name, const Tensor& x) {
  expect(x.shape.size() == 3 && x.shape[2] % 2 == 0, name, "needs {N, T, 2H}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "SumDirections";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1], x.shape[2] / 2};
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = Tensor{-1, spec.shape}.elements();
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::loss(const std::string& name, const std::vector<Tensor>& logits,
                          const std::string& label) {
  LayerSpec spec;
  spec.name = name;
  spec.label = label;
  spec.inputs = logits;
  spec.shape = {1};
  spec.work.kind = OpKind::kSoftmax;
  for (const Tensor& x : logits) {
    spec.work.flops += 5 * x.elements();
    spec.work.bytes += 2 * bytes(x);  // read the logits, keep the log-probabilities for backward
  }
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::flatten(const Tensor& x) {
  Tensor out{x.layer, {x.shape.at(0), 1}};
  for (size_t d = 1; d < x.shape.size(); ++d) out.shape[1] *= x.shape[d];
  return out;
}

LayerGraph LayerBuilder::finish(const Tensor& output) const {
  LayerGraph graph = graph_;
  graph.output_layer = output.layer;
  graph.validate(model_name_);
  return graph;
}

}  // namespace zoo
}  // namespace pacml
