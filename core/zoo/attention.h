// How a transformer's attention runs: PyTorch 2's fused scaled-dot-product
// attention (the default of torch.nn.functional.scaled_dot_product_attention,
// nn.MultiheadAttention and Hugging Face's attn_implementation="sdpa") or the
// eager composition of matmul, softmax, dropout and matmul that PyTorch 1.x
// models ran (and that Hugging Face's attn_implementation="eager" still runs).
#pragma once

#include <string>

namespace pacml {

// kSdpa: one fused flash / memory-efficient kernel that never materialises the
// T x S score matrix. kEager: scores, softmax, dropout and context as separate
// kernels, each keeping its N x heads x T x S tensor for the backward pass.
enum class Attention { kSdpa, kEager };

// "sdpa", "eager".
const char* attention_name(Attention attention);

// Parses "sdpa" / "eager"; throws InputError("--attention", ...) naming both.
Attention parse_attention(const std::string& text);

}  // namespace pacml
