#include "core/inference/gpu_network.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/inference/eigen_layers.h"
#include "core/util/error.h"

namespace pacml::inference {

using namespace eigen;

nlohmann::json GpuArchitecture::to_json() const {
  return {{"kind", kKind},
          {"node_in", graph.node_in},
          {"edge_in", graph.edge_in},
          {"module_width", graph.module_width},
          {"layers", graph.layers},
          {"layer_norm_eps", graph.layer_norm_eps},
          {"hidden", hidden}};
}

GpuArchitecture GpuArchitecture::from_json(const nlohmann::json& j, const std::string& where) {
  GpuArchitecture a;
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

TensorShapes GpuArchitecture::tensor_shapes() const {
  TensorShapes t;
  graph.append_tensor_shapes(t);
  auto fc = [&](const std::string& p, int in, int out) { append_linear_shape(t, p, in, out); };
  fc("act1", action_in(), hidden);
  fc("act2", hidden, hidden);
  fc("act3", hidden, 1);
  fc("val1", state_in(), hidden);
  fc("val2", hidden, 1);
  return t;
}

namespace {

// A Linear layer laid out input by input: w[k·padded + j] is input k's
// weight for output j, each input's row padded with zeros to a multiple of
// 8 outputs, so that eight outputs' sums advance together in one register.
struct ColumnLayer {
  int in = 0, out = 0, padded = 0;
  std::vector<float> w;  // in × padded
  std::vector<float> b;  // padded
};

ColumnLayer column_layer(const Linear& l) {
  ColumnLayer c;
  c.in = static_cast<int>(l.w.cols());
  c.out = static_cast<int>(l.w.rows());
  c.padded = (c.out + 7) / 8 * 8;
  c.w.assign(static_cast<size_t>(c.in) * c.padded, 0.f);
  c.b.assign(static_cast<size_t>(c.padded), 0.f);
  for (int j = 0; j < c.out; ++j) {
    c.b[static_cast<size_t>(j)] = l.b(j);
    for (int k = 0; k < c.in; ++k) c.w[static_cast<size_t>(k) * c.padded + j] = l.w(j, k);
  }
  return c;
}

// Every output of a layer is one sum, in one order on every CPU:
//   y_j = relu?(((x_0 w_0j + x_1 w_1j) + x_2 w_2j) + … + x_{n-1} w_{n-1,j}) + b_j)
// a product and an addition each rounded (no fused multiply-add), so the
// AVX kernels and the portable ones give the same bits, and a sum over the
// state's inputs is the first part of every candidate's sum: computed once
// per decision, each candidate continues it with its own inputs.
//
// Each kernel works on `rows` rows at once (one per candidate), row r of x
// at x + r·x_stride and of acc / y at + r·padded:
//   accumulate  acc continues (or, when `fresh`, starts) each row's sums with
//               its inputs x[0..n) and their weight rows w (n × padded)
//   finish      y = relu?(acc + b), b shared by the rows
struct Heads;
struct Kernels {
  void (*accumulate)(const float* x, int x_stride, int rows, int n, const float* w, int padded,
                     bool fresh, float* acc);
  void (*finish)(const float* acc, int rows, const float* b, int padded, bool rectify, float* y);
  // Optional: the same sums for every candidate's logit at once, for heads
  // of 1..8 (logits8) or 9..16 units (logits16; the shipped shape), each
  // candidate held in registers.
  void (*logits8)(const float* prefix, const float* actions, int rows, const Heads& heads,
                  float* logits);
  void (*logits16)(const float* prefix, const float* actions, int rows, const Heads& heads,
                   float* logits);
};

// What the candidates' part of the network reads: act1's weights for the
// action's inputs (kGpuActionScalars × padded) and bias, act2, act3.
struct Heads {
  const float *act1_actions, *act1_b, *act2_w, *act2_b, *act3_w, *act3_b;
  int hidden, padded, act3_padded;
};

// max(y, 0) as Eigen's cwiseMax(0.f) gives it (std::max's NaN and -0).
inline float relu(float y) {
  return y < 0.f ? 0.f : y;
}

void accumulate_portable(const float* x, int x_stride, int rows, int n, const float* w, int padded,
                         bool fresh, float* acc) {
  for (int r = 0; r < rows; ++r, x += x_stride, acc += padded)
    for (int j = 0; j < padded; ++j) {
      int k = 0;
      float s = acc[j];
      if (fresh) s = x[0] * w[j], k = 1;
      for (; k < n; ++k) s = s + x[k] * w[static_cast<size_t>(k) * padded + j];
      acc[j] = s;
    }
}

void finish_portable(const float* acc, int rows, const float* b, int padded, bool rectify,
                     float* y) {
  for (int r = 0; r < rows; ++r, acc += padded, y += padded)
    for (int j = 0; j < padded; ++j) y[j] = rectify ? relu(acc[j] + b[j]) : acc[j] + b[j];
}

#if defined(__x86_64__) && defined(__GNUC__)
#define PACML_AVX_KERNELS 1
// Per row, sixteen outputs at a time (two independent chains of additions),
// then eight.
__attribute__((target("avx"))) void accumulate_avx(const float* x, int x_stride, int rows, int n,
                                                   const float* w, int padded, bool fresh,
                                                   float* acc) {
  const int k0 = fresh ? 1 : 0;
  for (int r = 0; r < rows; ++r, x += x_stride, acc += padded) {
    int j = 0;
    for (; j + 16 <= padded; j += 16) {
      __m256 r0, r1;
      if (fresh) {
        const __m256 x0 = _mm256_set1_ps(x[0]);
        r0 = _mm256_mul_ps(x0, _mm256_loadu_ps(w + j));
        r1 = _mm256_mul_ps(x0, _mm256_loadu_ps(w + j + 8));
      } else {
        r0 = _mm256_loadu_ps(acc + j), r1 = _mm256_loadu_ps(acc + j + 8);
      }
      const float* wk = w + static_cast<size_t>(k0) * padded + j;
      for (int k = k0; k < n; ++k, wk += padded) {
        const __m256 xk = _mm256_set1_ps(x[k]);
        r0 = _mm256_add_ps(r0, _mm256_mul_ps(xk, _mm256_loadu_ps(wk)));
        r1 = _mm256_add_ps(r1, _mm256_mul_ps(xk, _mm256_loadu_ps(wk + 8)));
      }
      _mm256_storeu_ps(acc + j, r0), _mm256_storeu_ps(acc + j + 8, r1);
    }
    for (; j < padded; j += 8) {
      __m256 r0 = fresh ? _mm256_mul_ps(_mm256_set1_ps(x[0]), _mm256_loadu_ps(w + j))
                        : _mm256_loadu_ps(acc + j);
      const float* wk = w + static_cast<size_t>(k0) * padded + j;
      for (int k = k0; k < n; ++k, wk += padded)
        r0 = _mm256_add_ps(r0, _mm256_mul_ps(_mm256_set1_ps(x[k]), _mm256_loadu_ps(wk)));
      _mm256_storeu_ps(acc + j, r0);
    }
  }
}

__attribute__((target("avx"))) void finish_avx(const float* acc, int rows, const float* b,
                                               int padded, bool rectify, float* y) {
  for (int r = 0; r < rows; ++r, acc += padded, y += padded)
    for (int j = 0; j < padded; j += 8) {
      __m256 v = _mm256_add_ps(_mm256_loadu_ps(acc + j), _mm256_loadu_ps(b + j));
      if (rectify) v = _mm256_max_ps(_mm256_setzero_ps(), v);  // (0 > v) ? 0 : v, as relu()
      _mm256_storeu_ps(y + j, v);
    }
}

// acc[r] = relu(acc[r] + b) into y[r], for R rows of V registers, as finish_avx.
template <int R, int V>
__attribute__((target("avx"), always_inline)) inline void rectify_rows(__m256 (&acc)[R][V],
                                                                       const float* b,
                                                                       float (*y)[8 * V]) {
  const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      _mm256_store_ps(y[r] + 8 * v,
                      _mm256_max_ps(zero, _mm256_add_ps(acc[r][v], _mm256_loadu_ps(b + 8 * v))));
}

// acc[r] += x[r·x_stride + k] · w[k] for k in [from, n), input by input;
// weight row k is w + 8·V·k.
template <int R, int V>
__attribute__((target("avx"), always_inline)) inline void add_rows(__m256 (&acc)[R][V],
                                                                   const float* x, int x_stride,
                                                                   int from, int n,
                                                                   const float* w) {
  for (int k = from; k < n; ++k) {
    __m256 wk[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) wk[v] = _mm256_loadu_ps(w + 8 * V * k + 8 * v);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 xk = _mm256_set1_ps(x[r * x_stride + k]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_mul_ps(xk, wk[v]));
    }
  }
}

// R candidates of a decision through act1's action part, act2 and act3, with
// 8·V hidden outputs per layer (heads of up to 8 or 16 units, padded) in V
// registers per candidate: the sums accumulate and finish compute, in the
// same order (act3's one output summed input by input, as lane 0 of
// accumulate's). The candidates advance input by input together, so their
// chains of additions overlap in the CPU and each weight row is loaded once
// for all of them.
template <int R, int V>
__attribute__((target("avx"), always_inline)) inline void logits_rows(const float* prefix,
                                                                      const float* actions,
                                                                      const Heads& h,
                                                                      float* logits) {
  constexpr int kAction = features::kGpuActionScalars, kWidth = 8 * V;
  alignas(32) float h1[R][kWidth], h2[R][kWidth];
  __m256 acc[R][V];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_loadu_ps(prefix + 8 * v);
  add_rows<R, V>(acc, actions, kAction, 0, kAction, h.act1_actions);
  rectify_rows<R, V>(acc, h.act1_b, h1);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const __m256 first = _mm256_set1_ps(h1[r][0]);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_mul_ps(first, _mm256_loadu_ps(h.act2_w + 8 * v));
  }
  add_rows<R, V>(acc, &h1[0][0], kWidth, 1, h.hidden, h.act2_w);
  rectify_rows<R, V>(acc, h.act2_b, h2);
  float sum[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) sum[r] = h2[r][0] * h.act3_w[0];
  for (int k = 1; k < h.hidden; ++k) {
    const float w = h.act3_w[static_cast<size_t>(k) * h.act3_padded];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const float product = h2[r][k] * w;
      sum[r] = sum[r] + product;
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) logits[r] = sum[r] + h.act3_b[0];
}

// Every candidate's logit, up to four candidates at a time.
template <int V>
__attribute__((target("avx"))) void logits_avx(const float* prefix, const float* actions, int rows,
                                               const Heads& h, float* logits) {
  constexpr int kAction = features::kGpuActionScalars;
  int r = 0;
  for (; r + 4 <= rows; r += 4) logits_rows<4, V>(prefix, actions + r * kAction, h, logits + r);
  switch (rows - r) {
    case 3:
      logits_rows<3, V>(prefix, actions + r * kAction, h, logits + r);
      break;
    case 2:
      logits_rows<2, V>(prefix, actions + r * kAction, h, logits + r);
      break;
    case 1:
      logits_rows<1, V>(prefix, actions + r * kAction, h, logits + r);
      break;
    default:
      break;
  }
}
#endif

std::atomic<bool> portable_kernels{false};

const Kernels& kernels() {
  static const Kernels portable{accumulate_portable, finish_portable, nullptr, nullptr};
  static const Kernels fastest = [] {
#ifdef PACML_AVX_KERNELS
    if (__builtin_cpu_supports("avx"))
      return Kernels{accumulate_avx, finish_avx, logits_avx<1>, logits_avx<2>};
#endif
    return portable;
  }();
  return portable_kernels.load(std::memory_order_relaxed) ? portable : fastest;
}

// Per-thread buffers, so that a warm decision allocates nothing; the network
// itself is shared by threads (the trainer's workers).
struct Scratch {
  std::vector<float> state, acc, h1, h2, out;  // rows of `padded` (out: of 8)
};

}  // namespace

struct GpuNetwork::Impl {
  Impl(const GpuArchitecture& a, const TensorReader& r) : arch(a), message_passing(a.graph, r) {}
  GpuArchitecture arch;
  MessagePassing message_passing;
  ColumnLayer act1, act2, act3, val1, val2;
};

GpuNetwork::GpuNetwork(const GpuArchitecture& arch, const WeightsFile& weights,
                       const std::string& where) {
  const TensorShapes shapes = arch.tensor_shapes();
  const TensorReader r(weights, shapes, where, GpuArchitecture::kKind);
  impl_ = std::make_unique<Impl>(arch, r);
  impl_->act1 = column_layer(read_linear(r, "act1"));
  impl_->act2 = column_layer(read_linear(r, "act2"));
  impl_->act3 = column_layer(read_linear(r, "act3"));
  impl_->val1 = column_layer(read_linear(r, "val1"));
  impl_->val2 = column_layer(read_linear(r, "val2"));
}

GpuNetwork::~GpuNetwork() = default;
GpuNetwork::GpuNetwork(GpuNetwork&&) noexcept = default;
GpuNetwork& GpuNetwork::operator=(GpuNetwork&&) noexcept = default;

const GpuArchitecture& GpuNetwork::architecture() const {
  return impl_->arch;
}

std::vector<float> GpuNetwork::embed(const features::JobFeatures& job) const {
  return impl_->message_passing.embed(job);
}

void GpuNetwork::use_portable_kernels(bool portable) {
  portable_kernels.store(portable, std::memory_order_relaxed);
}

namespace {

// Every candidate's logit with the generic kernels, each layer one call for
// all candidates; t.acc's first row holds act1's sums over the state.
void candidates_by_layer(const Kernels& k, const Heads& h, const features::GpuDecisionFeatures& d,
                         Scratch& t, std::vector<float>& logits) {
  constexpr int kAction = features::kGpuActionScalars;
  const int actions = static_cast<int>(d.gpus.size()), padded = h.padded;
  for (int a = 1; a < actions; ++a)
    std::copy_n(t.acc.data(), padded, t.acc.data() + static_cast<size_t>(a) * padded);
  k.accumulate(d.actions.data(), kAction, actions, kAction, h.act1_actions, padded, false,
               t.acc.data());
  k.finish(t.acc.data(), actions, h.act1_b, padded, true, t.h1.data());
  k.accumulate(t.h1.data(), padded, actions, h.hidden, h.act2_w, padded, true, t.acc.data());
  k.finish(t.acc.data(), actions, h.act2_b, padded, true, t.h2.data());
  k.accumulate(t.h2.data(), padded, actions, h.hidden, h.act3_w, 8, true, t.out.data());
  k.finish(t.out.data(), actions, h.act3_b, 8, false, t.out.data());
  for (int a = 0; a < actions; ++a)
    logits[static_cast<size_t>(a)] = t.out[static_cast<size_t>(a) * 8];
}

}  // namespace

GpuJobEmbedding GpuNetwork::with_prefix(std::vector<float> embedding) const {
  const Impl& m = *impl_;
  const int e = m.arch.graph.embedding();
  if (static_cast<int>(embedding.size()) != e)
    throw std::invalid_argument("GpuNetwork: an embedding of " + std::to_string(embedding.size()) +
                                " floats, the network's has " + std::to_string(e));
  GpuJobEmbedding job;
  job.act1_prefix.assign(static_cast<size_t>(m.act1.padded), 0.f);
  kernels().accumulate(embedding.data(), e, 1, e, m.act1.w.data(), m.act1.padded, true,
                       job.act1_prefix.data());
  job.embedding = std::move(embedding);
  return job;
}

void GpuNetwork::score(const std::vector<float>& embedding, const features::GpuDecisionFeatures& d,
                       std::vector<float>& logits, float* value) const {
  score(with_prefix(embedding), d, logits, value);
}

void GpuNetwork::score(const GpuJobEmbedding& job, const features::GpuDecisionFeatures& d,
                       std::vector<float>& logits, float* value) const {
  const Impl& m = *impl_;
  constexpr int kJob = features::kGpuJobScalars, kContext = features::kGpuContextScalars;
  const int e = m.arch.graph.embedding(), state = m.arch.state_in(), hidden = m.arch.hidden;
  const int padded = m.act1.padded, actions = static_cast<int>(d.gpus.size());
  const Kernels& k = kernels();
  thread_local Scratch t;
  t.state.resize(static_cast<size_t>(state));
  const size_t block = static_cast<size_t>(std::max(actions, 1)) * padded;
  if (t.acc.size() < block) t.acc.resize(block), t.h1.resize(block), t.h2.resize(block);
  if (t.out.size() < static_cast<size_t>(actions) * 8 + 8) t.out.resize(actions * 8 + 8);
  float* const s = t.state.data();
  std::copy_n(job.embedding.data(), e, s);
  std::copy_n(d.job.data(), kJob, s + e);
  std::copy_n(d.context.data(), kContext, s + e + kJob);
  // act1's sums over the state, the same first terms for every candidate
  // (those over the embedding computed once per job); then every candidate
  // continues them with its action's inputs.
  std::copy_n(job.act1_prefix.data(), padded, t.acc.data());
  k.accumulate(s + e, state, 1, kJob + kContext, m.act1.w.data() + static_cast<size_t>(e) * padded,
               padded, false, t.acc.data());
  const Heads heads{m.act1.w.data() + static_cast<size_t>(state) * padded,
                    m.act1.b.data(),
                    m.act2.w.data(),
                    m.act2.b.data(),
                    m.act3.w.data(),
                    m.act3.b.data(),
                    hidden,
                    padded,
                    m.act3.padded};
  logits.resize(static_cast<size_t>(actions));
  if (k.logits8 && padded == 8)
    k.logits8(t.acc.data(), d.actions.data(), actions, heads, logits.data());
  else if (k.logits16 && padded == 16)
    k.logits16(t.acc.data(), d.actions.data(), actions, heads, logits.data());
  else
    candidates_by_layer(k, heads, d, t, logits);
  if (value) {
    k.accumulate(s, state, 1, state, m.val1.w.data(), padded, true, t.acc.data());
    k.finish(t.acc.data(), 1, m.val1.b.data(), padded, true, t.h1.data());
    k.accumulate(t.h1.data(), padded, 1, hidden, m.val2.w.data(), 8, true, t.out.data());
    k.finish(t.out.data(), 1, m.val2.b.data(), 8, false, t.out.data());
    *value = t.out[0];
  }
}

}  // namespace pacml::inference
