// Llama-style decoders as Hugging Face's LlamaForCausalLM defines them
// (module names kept: model.layers.0.self_attn.q_proj, mlp.gate_proj,
// model.norm, lm_head). MistralForCausalLM builds the same graph.
//
// A pre-norm decoder block: RMSNorm, grouped-query attention (q, k, v
// projections without biases, k and v kv_heads * head_dim wide, rotary
// embeddings applied to q and k, causal attention), the output projection
// and a residual add; then RMSNorm, the SwiGLU MLP down(silu(gate(x)) * up(x))
// and a residual add. Hugging Face's Llama configurations have no dropout
// (attention_dropout 0.0) and no position table (RoPE is computed from the
// position ids).
#include <string>

#include "core/zoo/zoo_models.h"

namespace pacml {
namespace zoo {
namespace {

Tensor llama_attention(LayerBuilder& b, const std::string& p, const Tensor& x, const ModelSize& c) {
  const long head_dim = c.hidden / c.heads;
  Tensor q = b.linear(p + "q_proj", x, c.hidden, false);
  Tensor k = b.linear(p + "k_proj", x, c.kv_heads * head_dim, false);
  Tensor v = b.linear(p + "v_proj", x, c.kv_heads * head_dim, false);
  q = b.rotary(p + "rotary_q", q, head_dim);
  k = b.rotary(p + "rotary_k", k, head_dim);
  AttentionSpec spec;
  spec.heads = c.heads;
  spec.causal = true;
  spec.attention = c.attention;
  Tensor context = attention_core(b, p, q, k, v, spec);
  return b.linear(p + "o_proj", context, c.hidden, false);
}

// SwiGLU: down_proj(act_fn(gate_proj(x)) * up_proj(x)), act_fn = SiLU.
Tensor llama_mlp(LayerBuilder& b, const std::string& p, const Tensor& x, const ModelSize& c) {
  Tensor gate = b.linear(p + "gate_proj", x, c.ffn_hidden, false);
  gate = b.silu(p + "act_fn", gate);
  Tensor up = b.linear(p + "up_proj", x, c.ffn_hidden, false);
  Tensor product = b.multiply(p + "mul", {gate, up});
  return b.linear(p + "down_proj", product, c.hidden, false);
}

// One LlamaDecoderLayer.
Tensor llama_layer(LayerBuilder& b, const std::string& p, const Tensor& h, const ModelSize& c) {
  Tensor a = b.rms_norm(p + "input_layernorm", h);
  a = llama_attention(b, p + "self_attn.", a, c);
  Tensor h1 = b.add(p + "attn_residual", {a, h});
  Tensor m = b.rms_norm(p + "post_attention_layernorm", h1);
  m = llama_mlp(b, p + "mlp.", m, c);
  return b.add(p + "mlp_residual", {m, h1});
}

}  // namespace

Tensor llama(LayerBuilder& b, const ModelSize& size) {
  Tensor ids = b.input("input_ids", {size.batch, size.seq_len}, LayerBuilder::InputKind::kTokenIds,
                       "Input(token ids)");
  Tensor h = b.embedding("model.embed_tokens", ids, size.vocab, size.hidden);
  for (long l = 0; l < size.layers; ++l)
    h = llama_layer(b, "model.layers." + std::to_string(l) + ".", h, size);
  h = b.rms_norm("model.norm", h);
  // tie_word_embeddings: lm_head uses embed_tokens' matrix (Llama 3.2 1B / 3B).
  Tensor logits = b.linear("lm_head", h, size.vocab, false,
                           size.tied_embeddings ? Weights::kShared : Weights::kOwn);
  return b.loss("loss", {logits}, "CrossEntropyLoss(next token)");
}

}  // namespace zoo
}  // namespace pacml
