// Transformers as Hugging Face defines them (module names kept):
// BERT for pre-training (masked-LM and next-sentence heads) and GPT-2 as a
// causal language model with its output layer tied to the token embedding.
//
// Attention (attention_core) is either PyTorch 2's fused scaled-dot-product
// kernel, one layer, or the eager composition: scores = q k^T, softmax
// (scaling and the mask are fused into it), dropout on the probabilities and
// context = probs v. Every layer has the real residual edges.
#include <string>

#include "core/zoo/zoo_models.h"

namespace pacml {
namespace zoo {
namespace {

struct TransformerConfig {
  long layers;
  long hidden;
  long heads;
  long vocab;
  long max_positions;
};

constexpr double kDropout = 0.1;

// Attention as the model was configured to run it (BERT and GPT-2 apply
// dropout 0.1 to the attention probabilities; a fused kernel does it inside).
Tensor self_attention(LayerBuilder& b, const std::string& p, const Tensor& q, const Tensor& k,
                      const Tensor& v, long heads, bool causal, Attention attention) {
  AttentionSpec spec;
  spec.heads = heads;
  spec.causal = causal;
  spec.dropout = kDropout;
  spec.attention = attention;
  return attention_core(b, p, q, k, v, spec);
}

// ---- BERT ------------------------------------------------------------------

// One post-LN encoder layer (BertLayer).
Tensor bert_layer(LayerBuilder& b, const std::string& p, const Tensor& x,
                  const TransformerConfig& c, Attention attention) {
  const std::string self = p + "attention.self.";
  Tensor q = b.linear(self + "query", x, c.hidden);
  Tensor k = b.linear(self + "key", x, c.hidden);
  Tensor v = b.linear(self + "value", x, c.hidden);
  Tensor context = self_attention(b, self, q, k, v, c.heads, false, attention);

  const std::string out = p + "attention.output.";
  Tensor a = b.linear(out + "dense", context, c.hidden);
  a = b.dropout(out + "dropout", a, kDropout);
  a = b.add(out + "add", {a, x});
  a = b.layer_norm(out + "LayerNorm", a);

  Tensor f = b.linear(p + "intermediate.dense", a, 4 * c.hidden);
  f = b.gelu(p + "intermediate.intermediate_act_fn", f);
  f = b.linear(p + "output.dense", f, c.hidden);
  f = b.dropout(p + "output.dropout", f, kDropout);
  f = b.add(p + "output.add", {f, a});
  return b.layer_norm(p + "output.LayerNorm", f);
}

Tensor bert(LayerBuilder& b, const ModelSize& size, const TransformerConfig& c) {
  using Kind = LayerBuilder::InputKind;
  const long n = size.batch, t = size.seq_len;
  Tensor ids = b.input("input_ids", {n, t}, Kind::kTokenIds, "Input(token ids)");
  Tensor types = b.input("token_type_ids", {n, t}, Kind::kTokenIds, "Input(segment ids)");
  Tensor words = b.embedding("embeddings.word_embeddings", ids, c.vocab, c.hidden);
  // Position ids are 0..T-1: they depend on the input only through its length.
  Tensor positions = b.embedding("embeddings.position_embeddings", ids, c.max_positions, c.hidden);
  Tensor segments = b.embedding("embeddings.token_type_embeddings", types, 2, c.hidden);
  Tensor x = b.add("embeddings.add", {words, positions, segments});
  x = b.layer_norm("embeddings.LayerNorm", x);
  x = b.dropout("embeddings.dropout", x, kDropout);
  for (long l = 0; l < c.layers; ++l)
    x = bert_layer(b, "encoder.layer." + std::to_string(l) + ".", x, c, size.attention);

  // Pooler: dense + tanh on the first ([CLS]) token.
  Tensor cls{x.layer, {n, c.hidden}};
  Tensor pooled = b.linear("pooler.dense", cls, c.hidden);
  pooled = b.tanh("pooler.activation", pooled);

  // Masked-LM head; its decoder shares the word-embedding matrix (own bias).
  Tensor m = b.linear("cls.predictions.transform.dense", x, c.hidden);
  m = b.gelu("cls.predictions.transform.transform_act_fn", m);
  m = b.layer_norm("cls.predictions.transform.LayerNorm", m);
  m = b.linear("cls.predictions.decoder", m, c.vocab, true, Weights::kShared);
  Tensor nsp = b.linear("cls.seq_relationship", pooled, 2);
  return b.loss("loss", {m, nsp}, "CrossEntropyLoss(masked LM) + CrossEntropyLoss(next sentence)");
}

// ---- GPT-2 -----------------------------------------------------------------

// One pre-LN decoder block (GPT2Block) with causal self-attention.
Tensor gpt2_block(LayerBuilder& b, const std::string& p, const Tensor& h,
                  const TransformerConfig& c, Attention attention) {
  Tensor a = b.layer_norm(p + "ln_1", h);
  // c_attn projects to q, k, v at once; splitting it is a view.
  Tensor qkv = b.linear(p + "attn.c_attn", a, 3 * c.hidden);
  Tensor q{qkv.layer, a.shape};
  Tensor context = self_attention(b, p + "attn.", q, q, q, c.heads, true, attention);
  a = b.linear(p + "attn.c_proj", context, c.hidden);
  a = b.dropout(p + "attn.resid_dropout", a, kDropout);
  Tensor h1 = b.add(p + "add_1", {a, h});

  Tensor m = b.layer_norm(p + "ln_2", h1);
  m = b.linear(p + "mlp.c_fc", m, 4 * c.hidden);
  m = b.gelu(p + "mlp.act", m);
  m = b.linear(p + "mlp.c_proj", m, c.hidden);
  m = b.dropout(p + "mlp.dropout", m, kDropout);
  return b.add(p + "add_2", {m, h1});
}

Tensor gpt2_model(LayerBuilder& b, const ModelSize& size, const TransformerConfig& c) {
  Tensor ids = b.input("input_ids", {size.batch, size.seq_len}, LayerBuilder::InputKind::kTokenIds,
                       "Input(token ids)");
  Tensor tokens = b.embedding("wte", ids, c.vocab, c.hidden);
  Tensor positions = b.embedding("wpe", ids, c.max_positions, c.hidden);
  Tensor h = b.add("embed_add", {tokens, positions});
  h = b.dropout("drop", h, kDropout);
  for (long l = 0; l < c.layers; ++l)
    h = gpt2_block(b, "h." + std::to_string(l) + ".", h, c, size.attention);
  h = b.layer_norm("ln_f", h);
  Tensor logits = b.linear("lm_head", h, c.vocab, false, Weights::kShared);
  return b.loss("loss", {logits}, "CrossEntropyLoss(next token)");
}

// The family's configuration with the sizes the user resized (ModelSize).
TransformerConfig resized(TransformerConfig c, const ModelSize& size) {
  if (size.layers) c.layers = size.layers;
  if (size.hidden) c.hidden = size.hidden;
  if (size.heads) c.heads = size.heads;
  return c;
}

}  // namespace

Tensor attention_core(LayerBuilder& b, const std::string& prefix, const Tensor& q, const Tensor& k,
                      const Tensor& v, const AttentionSpec& spec) {
  if (spec.attention == Attention::kSdpa)
    return b.fused_attention(prefix + "sdpa", q, k, v, spec.heads, spec.causal);
  Tensor keys = k, values = v;
  const long groups = q.shape.back() / k.shape.back();  // grouped-query attention
  if (groups > 1) {
    keys = b.repeat_kv(prefix + "repeat_k", k, groups);
    values = b.repeat_kv(prefix + "repeat_v", v, groups);
  }
  // Eager attention computes the full T x S scores, masked or not.
  Tensor scores = b.attention_scores(prefix + "scores", q, keys, spec.heads);
  Tensor probs = b.softmax(prefix + "softmax", scores);
  // F.dropout with p = 0 returns its input: no kernel, no layer.
  if (spec.dropout > 0) probs = b.dropout(prefix + "dropout", probs, spec.dropout);
  return b.attention_context(prefix + "context", probs, values);
}

// BERT: vocabulary 30522 (uncased WordPiece), 512 positions.
Tensor bert_base(LayerBuilder& b, const ModelSize& size) {
  return bert(b, size, resized(TransformerConfig{12, 768, 12, 30522, 512}, size));
}

Tensor bert_large(LayerBuilder& b, const ModelSize& size) {
  return bert(b, size, resized(TransformerConfig{24, 1024, 16, 30522, 512}, size));
}

// GPT-2: vocabulary 50257 (byte-level BPE), 1024 positions.
Tensor gpt2(LayerBuilder& b, const ModelSize& size) {
  return gpt2_model(b, size, resized(TransformerConfig{12, 768, 12, 50257, 1024}, size));
}

Tensor gpt2_medium(LayerBuilder& b, const ModelSize& size) {
  return gpt2_model(b, size, resized(TransformerConfig{24, 1024, 16, 50257, 1024}, size));
}

Tensor gpt2_large(LayerBuilder& b, const ModelSize& size) {
  return gpt2_model(b, size, resized(TransformerConfig{36, 1280, 20, 50257, 1024}, size));
}

Tensor gpt2_xl(LayerBuilder& b, const ModelSize& size) {
  return gpt2_model(b, size, resized(TransformerConfig{48, 1600, 25, 50257, 1024}, size));
}

}  // namespace zoo
}  // namespace pacml
