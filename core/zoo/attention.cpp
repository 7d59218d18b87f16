#include "core/zoo/attention.h"

#include "core/util/error.h"

namespace pacml {

const char* attention_name(Attention attention) {
  return attention == Attention::kSdpa ? "sdpa" : "eager";
}

Attention parse_attention(const std::string& text) {
  if (text == "sdpa") return Attention::kSdpa;
  if (text == "eager") return Attention::kEager;
  throw InputError("--attention", "unknown attention '" + text +
                                      "'; known: sdpa (fused scaled-dot-product attention, "
                                      "PyTorch 2's default), eager (matmul, softmax, matmul)");
}

}  // namespace pacml
