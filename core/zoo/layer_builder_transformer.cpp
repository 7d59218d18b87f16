// LayerBuilder's transformer ops: attention (eager and fused), grouped-query
// key/value repetition, rotary embeddings, and the token-sequence ops of
// vision transformers (class token, position tables, conditioning).
#include <string>
#include <utility>

#include "core/zoo/layer_builder.h"

namespace pacml {
namespace zoo {
namespace {

// The logsumexp a flash kernel keeps per query row and head for its backward
// pass is fp32 whatever the precision (FlashAttention-2's softmax_lse).
constexpr double kLogsumexpBytes = 4;

}  // namespace

Tensor LayerBuilder::attention_scores(const std::string& name, const Tensor& q, const Tensor& k,
                                      long heads) {
  expect(q.shape.size() == 3 && k.shape.size() == 3 && q.shape[2] == k.shape[2] &&
             q.shape[0] == k.shape[0] && q.shape[2] % heads == 0,
         name, "attention scores need q {N, T, D}, k {N, S, D}, D divisible by heads");
  LayerSpec spec;
  spec.name = name;
  spec.label = "MatMul(Q, K^T, heads=" + std::to_string(heads) + ")";
  spec.inputs = {q, k};
  spec.shape = {q.shape[0], heads, q.shape[1], k.shape[1]};
  spec.work.kind = OpKind::kMatmul;
  spec.work.flops = 2.0 * q.shape[0] * q.shape[1] * k.shape[1] * q.shape[2];
  spec.work.bytes = bytes(q) + bytes(k) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::attention_context(const std::string& name, const Tensor& probs,
                                       const Tensor& v) {
  expect(probs.shape.size() == 4 && v.shape.size() == 3 && probs.shape[3] == v.shape[1], name,
         "attention context needs probs {N, h, T, S} and v {N, S, D}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "MatMul(P, V)";
  spec.inputs = {probs, v};
  spec.shape = {v.shape[0], probs.shape[2], v.shape[2]};
  spec.work.kind = OpKind::kMatmul;
  spec.work.flops = 2.0 * v.shape[0] * probs.shape[2] * v.shape[1] * v.shape[2];
  spec.work.bytes = bytes(probs) + bytes(v) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::fused_attention(const std::string& name, const Tensor& q, const Tensor& k,
                                     const Tensor& v, long heads, bool causal) {
  expect(q.shape.size() == 3 && k.shape == v.shape && k.shape.size() == 3 &&
             q.shape[0] == k.shape[0] && heads > 0 && q.shape[2] % heads == 0,
         name, "fused attention needs q {N, T, D}, k = v {N, S, D_kv}, D divisible by heads");
  const long head_dim = q.shape[2] / heads;
  const long kv_heads = k.shape[2] / head_dim;
  expect(kv_heads * head_dim == k.shape[2] && kv_heads > 0 && heads % kv_heads == 0, name,
         "the k/v heads must divide the query heads");
  const double n = static_cast<double>(q.shape[0]), t = static_cast<double>(q.shape[1]);
  LayerSpec spec;
  spec.name = name;
  spec.label = "ScaledDotProductAttention(heads=" + std::to_string(heads) +
               ", kv_heads=" + std::to_string(kv_heads) + (causal ? ", is_causal=True" : "") + ")";
  spec.inputs = {q, k, v};
  spec.shape = q.shape;
  // q k^T and p v for every query head: 2 * 2 * N * T * S * D; a causal
  // kernel skips the blocks above the diagonal, about half.
  spec.work.kind = OpKind::kMatmul;
  spec.work.flash_attention = true;
  spec.work.flops = 4.0 * n * t * k.shape[1] * q.shape[2] * (causal ? 0.5 : 1.0);
  spec.saved_extra_bytes = n * heads * t * kLogsumexpBytes;
  // Tiles of q, k and v are read from device memory once and the output and
  // logsumexp written once: O(N T D) traffic, never the T x S scores.
  spec.work.bytes =
      bytes(q) + bytes(k) + bytes(v) + bytes_of_shape(spec.shape) + spec.saved_extra_bytes;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::repeat_kv(const std::string& name, const Tensor& x, long groups) {
  expect(x.shape.size() == 3 && groups > 1, name, "repeat_kv needs {N, S, D_kv} and groups > 1");
  LayerSpec spec;
  spec.name = name;
  spec.label = "RepeatKV(n_rep=" + std::to_string(groups) + ")";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1], x.shape[2] * groups};
  spec.work.kind = OpKind::kElementwise;
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape);  // expand + reshape copies
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::rotary(const std::string& name, const Tensor& x, long head_dim) {
  expect(x.shape.size() == 3 && head_dim > 0 && x.shape[2] % head_dim == 0, name,
         "rotary needs {N, T, heads * head_dim}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "ApplyRotaryEmbedding(head_dim=" + std::to_string(head_dim) + ")";
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = 3 * x.elements();  // x cos + rotate_half(x) sin
  // cos and sin are {T, head_dim}, computed per step from the position ids.
  const double tables = 2.0 * x.shape[1] * head_dim * element_bytes_;
  spec.work.bytes = 2 * bytes(x) + tables;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::conditioned(const std::string& name, const std::vector<Tensor>& xs,
                                 const Tensor& condition, double flops_per_element,
                                 const std::string& label) {
  expect(!xs.empty() && condition.shape.size() == 3 && condition.shape[1] == 1, name,
         "conditioning needs inputs {N, T, D} and a condition {N, 1, C}");
  LayerSpec spec;
  spec.name = name;
  spec.label = label;
  spec.inputs = xs;
  spec.inputs.push_back(condition);
  spec.shape = xs[0].shape;
  double in_bytes = bytes(condition);
  for (const Tensor& x : xs) {
    expect(x.shape == spec.shape && x.shape[0] == condition.shape[0], name,
           "conditioning needs equal input shapes");
    in_bytes += bytes(x);
  }
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = flops_per_element * xs[0].elements();
  spec.work.bytes = in_bytes + bytes(xs[0]);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::prepend_tokens(const std::string& name, const Tensor& x, long count) {
  expect(x.shape.size() == 3 && count > 0, name, "prepend_tokens needs {N, T, D}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "Concat(class_token x " + std::to_string(count) + ", tokens)";
  spec.inputs = {x};
  spec.shape = {x.shape[0], x.shape[1] + count, x.shape[2]};
  spec.parameters = static_cast<double>(count) * x.shape[2];
  spec.work.kind = OpKind::kElementwise;
  spec.work.bytes = bytes(x) + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::add_positions(const std::string& name, const Tensor& x, bool learned) {
  expect(x.shape.size() == 3, name, "a position table needs {N, T, D}");
  const double table = static_cast<double>(x.shape[1]) * x.shape[2];
  LayerSpec spec;
  spec.name = name;
  spec.label = std::string("Add(") + (learned ? "learned" : "fixed sin-cos") + " positions)";
  spec.inputs = {x};
  spec.shape = x.shape;
  spec.parameters = learned ? table : 0;  // a fixed table is a buffer, not trained
  spec.work.kind = OpKind::kElementwise;
  spec.work.flops = x.elements();
  spec.work.bytes = 2 * bytes(x) + table * element_bytes_;
  return add_layer(std::move(spec));
}

Tensor LayerBuilder::sinusoidal_embedding(const std::string& name, const Tensor& t, long dim) {
  expect(t.shape.size() == 2 && t.shape[1] == 1 && dim > 0, name,
         "a sinusoidal embedding needs one scalar per sample {N, 1}");
  LayerSpec spec;
  spec.name = name;
  spec.label = "SinusoidalEmbedding(" + std::to_string(dim) + ")";
  spec.inputs = {t};
  spec.shape = {t.shape[0], 1, dim};
  spec.work.kind = OpKind::kActivation;
  spec.work.flops = 10 * Tensor{-1, spec.shape}.elements();  // frequencies, cos, sin
  spec.work.bytes = t.elements() * element_bytes_ + bytes_of_shape(spec.shape);
  return add_layer(std::move(spec));
}

}  // namespace zoo
}  // namespace pacml
