#include "core/inference/gpu_network.h"

#include <algorithm>
#include <atomic>
#include <vector>

#if defined(__SSE2__)
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

struct GpuNetwork::Impl {
  Impl(const GpuArchitecture& a, const TensorReader& r) : arch(a), message_passing(a.graph, r) {}
  GpuArchitecture arch;
  MessagePassing message_passing;
  Linear act1, act2, act3, val1, val2;
};

GpuNetwork::GpuNetwork(const GpuArchitecture& arch, const WeightsFile& weights,
                       const std::string& where) {
  const TensorShapes shapes = arch.tensor_shapes();
  const TensorReader r(weights, shapes, where, GpuArchitecture::kKind);
  impl_ = std::make_unique<Impl>(arch, r);
  impl_->act1 = read_linear(r, "act1");
  impl_->act2 = read_linear(r, "act2");
  impl_->act3 = read_linear(r, "act3");
  impl_->val1 = read_linear(r, "val1");
  impl_->val2 = read_linear(r, "val2");
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

namespace {

// The heads' sums of products, in exactly the order Eigen 3.4 sums one
// coefficient of the coefficient-based (lazy) product the heads were first
// written with (Redux.h, LinearVectorizedTraversal with 4-float SSE packets):
// products in two packet accumulators r0, r1 over blocks of 8 terms, then
// r0 + r1, one more packet if 4 terms remain, the 4 lanes reduced as
// (l0 + l2) + (l1 + l3), and the last terms one by one. Keeping that order
// keeps every logit's bits (no decision changes) while what is the same for
// every candidate is summed once: the first layer's sum over the state
// columns is the same first blocks of every candidate's sum, so its 8 lanes
// (r0 ‖ r1) are computed once per decision and each candidate adds only its
// action block. With AVX, r0 ‖ r1 is one 8-float register: the same
// additions, half the instructions.
#if defined(__SSE2__)
using Packet = __m128;
inline Packet load(const float* p) {
  return _mm_loadu_ps(p);
}
inline void store(float* p, Packet a) {
  _mm_storeu_ps(p, a);
}
inline Packet add(Packet a, Packet b) {
  return _mm_add_ps(a, b);
}
inline Packet mul(Packet a, Packet b) {
  return _mm_mul_ps(a, b);
}
inline float reduce(Packet a) {
  const Packet t = _mm_add_ps(a, _mm_movehl_ps(a, a));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}
#else
struct Packet {
  float v[4];
};
inline Packet load(const float* p) {
  return {{p[0], p[1], p[2], p[3]}};
}
inline void store(float* p, Packet a) {
  std::copy_n(a.v, 4, p);
}
inline Packet add(Packet a, Packet b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
}
inline Packet mul(Packet a, Packet b) {
  return {{a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]}};
}
inline float reduce(Packet a) {
  return (a.v[0] + a.v[2]) + (a.v[1] + a.v[3]);
}
#endif

inline Packet product(const float* x, const float* w) {
  return mul(load(x), load(w));
}

// max(y, 0) as Eigen's cwiseMax(0.f) gives it (std::max's NaN and -0).
inline float relu(float y) {
  return y < 0.f ? 0.f : y;
}

// The end of a sum once its blocks of 8 are folded into `r`: the packet of
// 4 terms left (if any), the lanes, the last terms, then the bias.
inline float finish(Packet r, const float* x, const float* w, int rest, float bias, bool rectify) {
  int k = 0;
  if (rest >= 4) r = add(r, product(x, w)), k = 4;
  float s = reduce(r);
  for (; k < rest; ++k) s += x[k] * w[k];
  s += bias;
  return rectify ? relu(s) : s;
}

// A sum of fewer than 8 terms (no block of 8).
inline float short_sum(const float* x, const float* w, int n, float bias, bool rectify) {
  if (n >= 4) return finish(product(x, w), x + 4, w + 4, n - 4, bias, rectify);
  float s = x[0] * w[0];
  for (int k = 1; k < n; ++k) s += x[k] * w[k];
  s += bias;
  return rectify ? relu(s) : s;
}

// The kernels, per instruction set. For rows j of w (stride floats apart):
//   prefix  lanes[8j..8j+8) = the lanes of x[0..n)·w_j[0..n), n a positive
//           multiple of 8
//   rows    y[j] = relu?(x[0..n)·w_j[0..n) + b[j]), continuing lanes[8j..)
//           when lanes is not null (else from the first term)
struct Kernels {
  void (*prefix)(const float* x, const float* w, int stride, int n, int rows, float* lanes);
  void (*rows)(const float* lanes, const float* x, const float* w, int stride, int n,
               const float* b, bool rectify, float* y, int rows);
};

void prefix_packets(const float* x, const float* w, int stride, int n, int rows, float* lanes) {
  for (int j = 0; j < rows; ++j, w += stride, lanes += 8) {
    Packet r0 = product(x, w), r1 = product(x + 4, w + 4);
    for (int k = 8; k < n; k += 8)
      r0 = add(r0, product(x + k, w + k)), r1 = add(r1, product(x + k + 4, w + k + 4));
    store(lanes, r0), store(lanes + 4, r1);
  }
}

void rows_packets(const float* lanes, const float* x, const float* w, int stride, int n,
                  const float* b, bool rectify, float* y, int rows) {
  const int blocks = n / 8 * 8;
  for (int j = 0; j < rows; ++j, w += stride) {
    if (!lanes && blocks == 0) {
      y[j] = short_sum(x, w, n, b[j], rectify);
      continue;
    }
    int k = 0;
    Packet r0, r1;
    if (lanes) {
      r0 = load(lanes + 8 * j), r1 = load(lanes + 8 * j + 4);
    } else {
      r0 = product(x, w), r1 = product(x + 4, w + 4), k = 8;
    }
    for (; k < blocks; k += 8)
      r0 = add(r0, product(x + k, w + k)), r1 = add(r1, product(x + k + 4, w + k + 4));
    y[j] = finish(add(r0, r1), x + blocks, w + blocks, n - blocks, b[j], rectify);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define PACML_AVX_KERNELS 1
__attribute__((target("avx"))) inline __m256 product8(const float* x, const float* w) {
  return _mm256_mul_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(w));
}

__attribute__((target("avx"))) void prefix_avx(const float* x, const float* w, int stride, int n,
                                               int rows, float* lanes) {
  for (int j = 0; j < rows; ++j, w += stride, lanes += 8) {
    __m256 r = product8(x, w);
    for (int k = 8; k < n; k += 8) r = _mm256_add_ps(r, product8(x + k, w + k));
    _mm256_storeu_ps(lanes, r);
  }
}

// Row j's blocks of 8, folded: r0 + r1.
__attribute__((target("avx"))) inline __m128 folded_blocks(const float* lanes, const float* x,
                                                           const float* w, int blocks, int j) {
  __m256 r;
  int k = 0;
  if (lanes) {
    r = _mm256_loadu_ps(lanes + 8 * j);
  } else {
    r = product8(x, w), k = 8;
  }
  for (; k < blocks; k += 8) r = _mm256_add_ps(r, product8(x + k, w + k));
  return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}

// Four rows at a time when no terms are left after the blocks (the shipped
// shapes): their lanes are reduced together, transposed so that
// (l0 + l2) + (l1 + l3), the bias and the ReLU are one instruction each for
// the four.
__attribute__((target("avx"))) void rows_avx(const float* lanes, const float* x, const float* w,
                                             int stride, int n, const float* b, bool rectify,
                                             float* y, int rows) {
  const int blocks = n / 8 * 8;
  auto row = [&](int j) { return w + static_cast<size_t>(j) * stride; };
  int j = 0;
  if (n == blocks && (lanes || blocks > 0)) {
    for (; j + 4 <= rows; j += 4) {
      __m128 l0 = folded_blocks(lanes, x, row(j), blocks, j);
      __m128 l1 = folded_blocks(lanes, x, row(j + 1), blocks, j + 1);
      __m128 l2 = folded_blocks(lanes, x, row(j + 2), blocks, j + 2);
      __m128 l3 = folded_blocks(lanes, x, row(j + 3), blocks, j + 3);
      _MM_TRANSPOSE4_PS(l0, l1, l2, l3);  // l0: lane 0 of the four rows, ...
      __m128 v = _mm_add_ps(_mm_add_ps(l0, l2), _mm_add_ps(l1, l3));
      v = _mm_add_ps(v, _mm_loadu_ps(b + j));
      if (rectify) v = _mm_max_ps(_mm_setzero_ps(), v);  // (0 > v) ? 0 : v, as relu()
      _mm_storeu_ps(y + j, v);
    }
  }
  for (; j < rows; ++j) {
    const float* wj = row(j);
    y[j] = !lanes && blocks == 0 ? short_sum(x, wj, n, b[j], rectify)
                                 : finish(folded_blocks(lanes, x, wj, blocks, j), x + blocks,
                                          wj + blocks, n - blocks, b[j], rectify);
  }
}
#endif

std::atomic<bool> portable_kernels{false};

const Kernels& kernels() {
  static const Kernels portable{prefix_packets, rows_packets};
  static const Kernels fastest = [] {
#ifdef PACML_AVX_KERNELS
    if (__builtin_cpu_supports("avx")) return Kernels{prefix_avx, rows_avx};
#endif
    return portable;
  }();
  return portable_kernels.load(std::memory_order_relaxed) ? portable : fastest;
}

// Per-thread buffers, so that a warm decision allocates nothing; the network
// itself is shared by threads (the trainer's workers).
struct Scratch {
  std::vector<float> state, row, lanes, h1, h2;
};

}  // namespace

void GpuNetwork::use_portable_kernels(bool portable) {
  portable_kernels.store(portable, std::memory_order_relaxed);
}

void GpuNetwork::score(const std::vector<float>& embedding, const features::GpuDecisionFeatures& d,
                       std::vector<float>& logits, float* value) const {
  const Impl& m = *impl_;
  constexpr int kJob = features::kGpuJobScalars, kContext = features::kGpuContextScalars,
                kAction = features::kGpuActionScalars;
  const int e = m.arch.graph.embedding(), state = m.arch.state_in(), hidden = m.arch.hidden;
  const int in = state + kAction, actions = static_cast<int>(d.gpus.size());
  const Kernels& k = kernels();
  thread_local Scratch t;
  t.state.resize(static_cast<size_t>(state));
  t.h1.resize(static_cast<size_t>(hidden));
  t.h2.resize(static_cast<size_t>(hidden));
  float* const s = t.state.data();
  std::copy_n(embedding.data(), e, s);
  std::copy_n(d.job.data(), kJob, s + e);
  std::copy_n(d.context.data(), kContext, s + e + kJob);
  // When the state fills whole blocks of 8 (the shipped shapes do), they are
  // the first blocks of every candidate's sum; otherwise each candidate's
  // row [state ‖ action] is summed whole.
  const bool split = state % 8 == 0;
  if (split) {
    t.lanes.resize(static_cast<size_t>(hidden) * 8);
    k.prefix(s, m.act1.w.data(), in, state, hidden, t.lanes.data());
  } else {
    t.row.resize(static_cast<size_t>(in));
    std::copy_n(s, state, t.row.data());
  }
  logits.resize(static_cast<size_t>(actions));
  for (int a = 0; a < actions; ++a) {
    const float* x = d.actions.data() + static_cast<size_t>(a) * kAction;
    if (split) {
      k.rows(t.lanes.data(), x, m.act1.w.data() + state, in, kAction, m.act1.b.data(), true,
             t.h1.data(), hidden);
    } else {
      std::copy_n(x, kAction, t.row.data() + state);
      k.rows(nullptr, t.row.data(), m.act1.w.data(), in, in, m.act1.b.data(), true, t.h1.data(),
             hidden);
    }
    k.rows(nullptr, t.h1.data(), m.act2.w.data(), hidden, hidden, m.act2.b.data(), true,
           t.h2.data(), hidden);
    k.rows(nullptr, t.h2.data(), m.act3.w.data(), hidden, hidden, m.act3.b.data(), false,
           &logits[static_cast<size_t>(a)], 1);
  }
  if (value) {
    k.rows(nullptr, s, m.val1.w.data(), state, state, m.val1.b.data(), true, t.h1.data(), hidden);
    k.rows(nullptr, t.h1.data(), m.val2.w.data(), hidden, hidden, m.val2.b.data(), false, value, 1);
  }
}

}  // namespace pacml::inference
