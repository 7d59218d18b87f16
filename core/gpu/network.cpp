#include "core/gpu/network.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/inference/eigen_layers.h"
#include "core/util/error.h"

namespace pacml::gpu {

using namespace inference::eigen;

nlohmann::json Architecture::to_json() const {
  return {{"kind", kKind},
          {"node_in", graph.node_in},
          {"edge_in", graph.edge_in},
          {"module_width", graph.module_width},
          {"layers", graph.layers},
          {"layer_norm_eps", graph.layer_norm_eps},
          {"hidden", hidden}};
}

Architecture Architecture::from_json(const nlohmann::json& j, const std::string& where) {
  Architecture a;
  try {
    const std::string kind = j.at("kind").get<std::string>();
    if (kind != kKind)
      throw InputError(where, "architecture '" + kind + "' is not a GPU policy (" + kKind + ")");
    a.graph.node_in = j.at("node_in").get<int>();
    a.graph.edge_in = j.at("edge_in").get<int>();
    a.graph.module_width = j.at("module_width").get<int>();
    a.graph.layers = j.at("layers").get<std::vector<int>>();
    a.graph.layer_norm_eps = j.at("layer_norm_eps").get<double>();
    a.hidden = j.at("hidden").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("architecture: ") + e.what());
  }
  auto in_range = [&](int v, int hi, const char* what) {
    if (v < 1 || v > hi)
      throw InputError(where, std::string("architecture: ") + what + " must be 1.." +
                                  std::to_string(hi) + ", got " + std::to_string(v));
  };
  if (a.graph.node_in != features::kNodeFeatures || a.graph.edge_in != features::kEdgeFeatures)
    throw InputError(where, "architecture: node/edge inputs do not match this pacml's features");
  in_range(a.graph.module_width, 4096, "module_width");
  in_range(a.hidden, 4096, "hidden");
  in_range(static_cast<int>(a.graph.layers.size()), 16, "the number of message-passing layers");
  for (int d : a.graph.layers) in_range(d, 4096, "a layer width");
  if (!(a.graph.layer_norm_eps > 0)) throw InputError(where, "architecture: layer_norm_eps <= 0");
  return a;
}

inference::TensorShapes Architecture::tensor_shapes() const {
  inference::TensorShapes t;
  graph.append_tensor_shapes(t);
  auto fc = [&](const std::string& p, int in, int out) {
    inference::append_linear_shape(t, p, in, out);
  };
  fc("act1", action_in(), hidden);
  fc("act2", hidden, hidden);
  fc("act3", hidden, 1);
  fc("val1", state_in(), hidden);
  fc("val2", hidden, 1);
  return t;
}

namespace {

// Outputs are summed in blocks of this many, each block one loop of a fixed
// length, which the compiler turns into vector instructions on any CPU
// (SSE2 on every x86-64) without changing any output's sum.
constexpr int kBlock = 8;

// A Linear layer laid out input by input: w[k·padded + j] is input k's
// weight for output j, each row padded with zeros to whole blocks, so that
// a sum over a run of inputs reads one block of rows.
struct Layer {
  int in = 0, out = 0, padded = 0;
  std::vector<float> w;  // in × padded
  std::vector<float> b;  // padded
};

Layer input_major(const Linear& l) {
  Layer c;
  c.in = static_cast<int>(l.w.cols());
  c.out = static_cast<int>(l.w.rows());
  c.padded = (c.out + kBlock - 1) / kBlock * kBlock;
  c.w.assign(static_cast<size_t>(c.in) * c.padded, 0.f);
  c.b.assign(static_cast<size_t>(c.padded), 0.f);
  for (int j = 0; j < c.out; ++j) {
    c.b[static_cast<size_t>(j)] = l.b(j);
    for (int k = 0; k < c.in; ++k) c.w[static_cast<size_t>(k) * c.padded + j] = l.w(j, k);
  }
  return c;
}

// Every output of a layer is one sum, in input order on every CPU:
//   y_j = relu?(((x_0 w_0j + x_1 w_1j) + x_2 w_2j) + … + x_{n-1} w_{n-1,j}) + b_j)
// a product and an addition each rounded (no fused multiply-add), which is
// what the trainer's checks and the committed goldens expect. The sum over
// the state's inputs is the first part of every candidate's act1 sum, so it
// is computed once per decision (over the embedding, once per job) and each
// candidate continues it with its own inputs.

// Continues the sums `sum` (l.padded floats; or, when `fresh`, starts them)
// with inputs x[0..n), which are the layer's inputs first..first + n. A
// block's sums stay in a local array across the inputs, so that they live in
// registers rather than going through memory at every input.
void add_inputs(const Layer& l, int first, const float* x, int n, bool fresh, float* sum) {
  const int padded = l.padded;
  const float* w = l.w.data() + static_cast<size_t>(first) * padded;
  for (int block = 0; block < padded; block += kBlock) {
    float s[kBlock];
    const float* row = w + block;
    if (fresh)
      for (int j = 0; j < kBlock; ++j) s[j] = x[0] * row[j];
    else
      for (int j = 0; j < kBlock; ++j) s[j] = sum[block + j];
    for (int k = fresh ? 1 : 0; k < n; ++k) {
      const float xk = x[k];
      row = w + static_cast<size_t>(k) * padded + block;
      for (int j = 0; j < kBlock; ++j) s[j] = s[j] + xk * row[j];
    }
    std::copy_n(s, kBlock, sum + block);
  }
}

// max(y, 0) as Eigen's cwiseMax(0.f) gives it (std::max's NaN and -0).
inline float relu(float y) {
  return y < 0.f ? 0.f : y;
}

// y = relu?(sum + b), l.padded floats, a block at a time in a local array as
// add_inputs (so that y may be sum).
void finish(const Layer& l, const float* sum, bool rectify, float* y) {
  for (int block = 0; block < l.padded; block += kBlock) {
    float v[kBlock];
    for (int j = 0; j < kBlock; ++j) v[j] = sum[block + j] + l.b[static_cast<size_t>(block + j)];
    if (rectify)
      for (int j = 0; j < kBlock; ++j) v[j] = relu(v[j]);
    std::copy_n(v, kBlock, y + block);
  }
}

// The whole layer on x (l.in floats) into y (l.padded floats).
void forward(const Layer& l, const float* x, bool rectify, float* y) {
  add_inputs(l, 0, x, l.in, true, y);
  finish(l, y, rectify, y);
}

// Per-thread buffers, so that a warm decision allocates nothing; the network
// itself is shared by threads (the trainer's workers).
struct Scratch {
  std::vector<float> state, sum, h1, h2;
};

}  // namespace

struct Network::Impl {
  Impl(const Architecture& a, const inference::TensorReader& r)
      : arch(a), message_passing(a.graph, r) {}
  Architecture arch;
  inference::MessagePassing message_passing;
  Layer act1, act2, act3, val1, val2;
};

Network::Network(const Architecture& arch, const inference::WeightsFile& weights,
                 const std::string& where) {
  const inference::TensorShapes shapes = arch.tensor_shapes();
  const inference::TensorReader r(weights, shapes, where, Architecture::kKind);
  impl_ = std::make_unique<Impl>(arch, r);
  impl_->act1 = input_major(read_linear(r, "act1"));
  impl_->act2 = input_major(read_linear(r, "act2"));
  impl_->act3 = input_major(read_linear(r, "act3"));
  impl_->val1 = input_major(read_linear(r, "val1"));
  impl_->val2 = input_major(read_linear(r, "val2"));
}

Network::~Network() = default;
Network::Network(Network&&) noexcept = default;
Network& Network::operator=(Network&&) noexcept = default;

const Architecture& Network::architecture() const {
  return impl_->arch;
}

std::vector<float> Network::embed(const features::JobFeatures& job) const {
  return impl_->message_passing.embed(job);
}

JobEmbedding Network::with_prefix(std::vector<float> embedding) const {
  const Impl& m = *impl_;
  const int e = m.arch.graph.embedding();
  if (static_cast<int>(embedding.size()) != e)
    throw std::invalid_argument("Network: an embedding of " + std::to_string(embedding.size()) +
                                " floats, the network's has " + std::to_string(e));
  JobEmbedding job;
  job.act1_prefix.resize(static_cast<size_t>(m.act1.padded));
  add_inputs(m.act1, 0, embedding.data(), e, true, job.act1_prefix.data());
  job.embedding = std::move(embedding);
  return job;
}

void Network::score(const std::vector<float>& embedding, const DecisionFeatures& d,
                    std::vector<float>& logits, float* value) const {
  score(with_prefix(embedding), d, logits, value);
}

void Network::score(const JobEmbedding& job, const DecisionFeatures& d, std::vector<float>& logits,
                    float* value) const {
  const Impl& m = *impl_;
  constexpr int kJob = kJobScalars, kContext = kContextScalars, kAction = kActionScalars;
  const int e = m.arch.graph.embedding(), state = m.arch.state_in(), padded = m.act1.padded;
  const size_t actions = d.gpus.size();
  thread_local Scratch t;
  t.state.resize(static_cast<size_t>(state));
  for (std::vector<float>* v : {&t.sum, &t.h1, &t.h2}) v->resize(static_cast<size_t>(padded));
  float* const s = t.state.data();
  std::copy_n(job.embedding.data(), e, s);
  std::copy_n(d.job.data(), kJob, s + e);
  std::copy_n(d.context.data(), kContext, s + e + kJob);
  // act1's sums over the state, the same first terms for every candidate
  // (those over the embedding computed once per job).
  std::copy_n(job.act1_prefix.data(), padded, t.sum.data());
  add_inputs(m.act1, e, s + e, kJob + kContext, false, t.sum.data());
  logits.resize(actions);
  float out[kBlock];  // act3's and val2's one output, padded
  for (size_t a = 0; a < actions; ++a) {
    std::copy_n(t.sum.data(), padded, t.h1.data());
    add_inputs(m.act1, state, d.actions.data() + a * kAction, kAction, false, t.h1.data());
    finish(m.act1, t.h1.data(), true, t.h1.data());
    forward(m.act2, t.h1.data(), true, t.h2.data());
    forward(m.act3, t.h2.data(), false, out);
    logits[a] = out[0];
  }
  if (value) {
    forward(m.val1, s, true, t.h1.data());
    forward(m.val2, t.h1.data(), false, out);
    *value = out[0];
  }
}

}  // namespace pacml::gpu
