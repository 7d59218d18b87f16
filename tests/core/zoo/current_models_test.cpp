// Today's zoo models (the llama family, torchvision's ViTs, DiT-XL/2) and the
// two attention kinds: parameter counts, module names and data flow, the
// fused attention's saved activations, and the options' errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "core/zoo/model_zoo.h"
#include "tests/core/zoo/zoo_test_util.h"

namespace pacml {
namespace {

InputError input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", "");
}

bool mentions(const InputError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

const Layer* find_layer(const LayerGraph& g, const std::string& name) {
  for (const Layer& l : g.layers)
    if (l.name == name) return &l;
  return nullptr;
}

using zoo_test::has_edge;
using zoo_test::index_of;

ZooOptions with_attention(Attention attention) {
  ZooOptions options;
  options.attention = attention;
  return options;
}

double total_activation_bytes(const LayerGraph& g) {
  double bytes = 0;
  for (const Layer& l : g.layers) bytes += l.activation_bytes;
  return bytes;
}

// ---- parameter counts ------------------------------------------------------

TEST(CurrentModels, ExactParameterCounts) {
  // From the layer shapes of the Hugging Face configs / torchvision / DiT code;
  // each is within 1 % of the published figure (ZooParams.WithinOnePercent...).
  const std::vector<std::pair<std::string, double>> exact = {
      {"llama3.2-1b", 1235814400},  // = the model card's exact count
      {"llama3.2-3b", 3212749824}, {"llama3-8b", 8030261248}, {"llama3-70b", 70553706496},
      {"mistral-7b", 7241732096},  {"vit_b_16", 86567656},    {"vit_l_16", 304326632},
      {"vit_h_14", 632045800},     {"dit-xl-2", 674834720},
  };
  for (const auto& [name, params] : exact) EXPECT_EQ(build_zoo_model(name).params, params) << name;
}

TEST(CurrentModels, LlamaOptionsResizeTheCount) {
  const double base = build_zoo_model("llama3.2-1b").params;
  ZooOptions untied;
  untied.tied_embeddings = false;
  EXPECT_EQ(build_zoo_model("llama3.2-1b", untied).params, base + 128256.0 * 2048);
  ZooOptions mha;
  mha.kv_heads = 32;  // multi-head attention: k and v as wide as q
  EXPECT_EQ(build_zoo_model("llama3.2-1b", mha).params, base + 16 * 2 * 2048.0 * (2048 - 512));
  ZooOptions small;
  small.ffn_hidden = 4096;
  small.vocab = 32000;
  EXPECT_EQ(build_zoo_model("llama3.2-1b", small).params,
            base - 16 * 3 * 2048.0 * 4096 - (128256 - 32000) * 2048.0);
}

// ---- structure --------------------------------------------------------------

TEST(CurrentModels, LlamaBlocksAreHuggingFaceModules) {
  const LayerGraph g = build_zoo_model("llama3-8b").graph;
  const std::string p = "model.layers.0.";
  EXPECT_TRUE(has_edge(g, "model.embed_tokens", p + "input_layernorm"));
  EXPECT_TRUE(has_edge(g, p + "self_attn.q_proj", p + "self_attn.rotary_q"));
  EXPECT_TRUE(has_edge(g, p + "self_attn.k_proj", p + "self_attn.rotary_k"));
  EXPECT_TRUE(has_edge(g, p + "self_attn.rotary_q", p + "self_attn.sdpa"));
  EXPECT_TRUE(has_edge(g, p + "self_attn.v_proj", p + "self_attn.sdpa"));
  EXPECT_TRUE(has_edge(g, p + "self_attn.sdpa", p + "self_attn.o_proj"));
  EXPECT_TRUE(has_edge(g, p + "mlp.act_fn", p + "mlp.mul"));
  EXPECT_TRUE(has_edge(g, p + "mlp.up_proj", p + "mlp.mul"));
  EXPECT_TRUE(has_edge(g, p + "mlp.down_proj", p + "mlp_residual"));
  EXPECT_TRUE(has_edge(g, "model.layers.31.mlp_residual", "model.norm"));
  EXPECT_TRUE(has_edge(g, "model.norm", "lm_head"));
  // GQA: k is 8 heads x 128 wide (batch 8 x 2048 tokens, fp32).
  EXPECT_DOUBLE_EQ(find_layer(g, p + "self_attn.k_proj")->activation_bytes, 8.0 * 2048 * 1024 * 4);
  EXPECT_EQ(find_layer(g, p + "input_layernorm")->parameter_bytes, 4096 * 4);  // weight only
  EXPECT_GT(find_layer(g, "lm_head")->parameter_bytes, 0);                     // untied
  for (const Layer& l : g.layers) {
    EXPECT_EQ(l.label.find("Dropout"), std::string::npos) << l.name;  // none in Llama
    EXPECT_EQ(l.label.find("bias=True"), std::string::npos) << l.name;
  }
  EXPECT_EQ(find_layer(build_zoo_model("llama3.2-1b").graph, "lm_head")->parameter_bytes, 0);
}

TEST(CurrentModels, VisionTransformersAreTorchvisionModules) {
  const LayerGraph vit = build_zoo_model("vit_b_16").graph;
  const std::string p = "encoder.layers.encoder_layer_0.";
  EXPECT_TRUE(has_edge(vit, "conv_proj", "class_token"));
  EXPECT_TRUE(has_edge(vit, "class_token", "encoder.pos_embedding"));
  EXPECT_TRUE(has_edge(vit, "encoder.pos_embedding", p + "ln_1"));
  EXPECT_TRUE(has_edge(vit, p + "self_attention.in_proj", p + "self_attention.sdpa"));
  EXPECT_TRUE(has_edge(vit, p + "mlp.3", p + "add_2"));
  EXPECT_TRUE(has_edge(vit, "encoder.ln", "heads.head"));
  // 196 patches + the class token, hidden 768 (batch 32, fp32).
  EXPECT_DOUBLE_EQ(find_layer(vit, "encoder.pos_embedding")->activation_bytes,
                   32.0 * 197 * 768 * 4);

  const LayerGraph dit = build_zoo_model("dit-xl-2").graph;
  EXPECT_DOUBLE_EQ(find_layer(dit, "pos_embed")->activation_bytes, 32.0 * 256 * 1152 * 4);
  EXPECT_EQ(find_layer(dit, "pos_embed")->parameter_bytes, 0);  // fixed sin-cos table
  EXPECT_TRUE(has_edge(dit, "t_embedder.mlp.2", "c"));
  EXPECT_TRUE(has_edge(dit, "y_embedder.embedding_table", "c"));
  EXPECT_TRUE(has_edge(dit, "c", "blocks.0.adaLN_modulation.0"));
  EXPECT_TRUE(has_edge(dit, "blocks.0.adaLN_modulation.1", "blocks.0.norm1.modulate"));
  EXPECT_TRUE(has_edge(dit, "blocks.0.adaLN_modulation.1", "blocks.0.gate_mlp"));
  EXPECT_TRUE(has_edge(dit, "blocks.27.gate_mlp", "final_layer.norm_final"));
  EXPECT_TRUE(has_edge(dit, "final_layer.linear", "loss"));
  EXPECT_EQ(find_layer(dit, "blocks.0.norm1")->parameter_bytes, 0);  // no affine
}

// ---- attention kinds ----------------------------------------------------------

TEST(AttentionKinds, SdpaIsTheDefaultAndOneLayer) {
  EXPECT_EQ(ZooOptions().attention, Attention::kSdpa);
  const ZooGraph sdpa = build_zoo_model("gpt2");
  const ZooGraph eager = build_zoo_model("gpt2", with_attention(Attention::kEager));
  EXPECT_EQ(sdpa.attention, Attention::kSdpa);
  EXPECT_NE(sdpa.configuration, eager.configuration);
  // Eager: scores, softmax, dropout, context per block; SDPA: one layer.
  EXPECT_EQ(eager.graph.num_layers() - sdpa.graph.num_layers(), 12 * 3);
  EXPECT_TRUE(find_layer(eager.graph, "h.0.attn.dropout"));
  EXPECT_FALSE(find_layer(sdpa.graph, "h.0.attn.scores"));
  EXPECT_TRUE(has_edge(sdpa.graph, "h.0.attn.c_attn", "h.0.attn.sdpa"));
  EXPECT_EQ(sdpa.params, eager.params);
}

TEST(AttentionKinds, SdpaKeepsNoScoreMatrices) {
  // GPT-2, batch 8 x 1024 tokens, fp32: eager keeps three {8, 12, 1024, 1024}
  // tensors per block (scores, probabilities, dropped-out probabilities).
  const LayerGraph sdpa = build_zoo_model("gpt2").graph;
  const LayerGraph eager = build_zoo_model("gpt2", with_attention(Attention::kEager)).graph;
  const double scores = 8.0 * 12 * 1024 * 1024 * 4;
  EXPECT_DOUBLE_EQ(find_layer(eager, "h.0.attn.scores")->activation_bytes, scores);
  // SDPA keeps its output {8, 1024, 768} and the fp32 logsumexp {8, 12, 1024}.
  EXPECT_DOUBLE_EQ(find_layer(sdpa, "h.0.attn.sdpa")->activation_bytes,
                   8.0 * 1024 * 768 * 4 + 8.0 * 12 * 1024 * 4);
  // Per block eager keeps three score-sized tensors more, SDPA the logsumexp.
  const double logsumexp = 8.0 * 12 * 1024 * 4;
  EXPECT_DOUBLE_EQ(total_activation_bytes(eager) - total_activation_bytes(sdpa),
                   12 * (3 * scores - logsumexp));
  // Backward of a fused layer: 2.5x its forward FLOPs, so at this size it is
  // longer than the forward but cheaper than eager's five layers' backward.
  const Layer& fused = *find_layer(sdpa, "h.0.attn.sdpa");
  EXPECT_GT(fused.backward_time, 2 * fused.forward_time);
  double eager_backward = 0;
  for (const char* part : {"scores", "softmax", "dropout", "context"})
    eager_backward += find_layer(eager, std::string("h.0.attn.") + part)->backward_time;
  EXPECT_LT(fused.backward_time, eager_backward);
}

TEST(AttentionKinds, DecodersAreCausalEncodersAreNot) {
  // The FLOP halving itself: LayerBuilder.FusedAttentionKeepsNoScores...
  const LayerGraph gpt = build_zoo_model("gpt2").graph;
  const LayerGraph llama = build_zoo_model("mistral-7b").graph;
  const LayerGraph bert = build_zoo_model("bert-base").graph;
  const LayerGraph dit = build_zoo_model("dit-xl-2").graph;
  EXPECT_NE(find_layer(gpt, "h.0.attn.sdpa")->label.find("is_causal=True"), std::string::npos);
  EXPECT_NE(find_layer(llama, "model.layers.0.self_attn.sdpa")->label.find("is_causal=True"),
            std::string::npos);
  EXPECT_EQ(find_layer(bert, "encoder.layer.0.attention.self.sdpa")->label.find("is_causal"),
            std::string::npos);
  EXPECT_EQ(find_layer(dit, "blocks.0.attn.sdpa")->label.find("is_causal"), std::string::npos);
}

TEST(AttentionKinds, EagerGroupedQueryAttentionRepeatsKeyValueHeads) {
  const LayerGraph g = build_zoo_model("llama3.2-1b", with_attention(Attention::kEager)).graph;
  const std::string p = "model.layers.0.self_attn.";
  EXPECT_TRUE(has_edge(g, p + "rotary_k", p + "repeat_k"));
  EXPECT_TRUE(has_edge(g, p + "repeat_k", p + "scores"));
  EXPECT_TRUE(has_edge(g, p + "repeat_v", p + "context"));
  EXPECT_FALSE(find_layer(g, p + "dropout"));  // attention_dropout 0.0: no kernel
  // Multi-head ViT: no repetition.
  EXPECT_FALSE(find_layer(build_zoo_model("vit_b_16", with_attention(Attention::kEager)).graph,
                          "encoder.layers.encoder_layer_0.self_attention.repeat_k"));
}

TEST(AttentionKinds, ParseAttention) {
  EXPECT_EQ(parse_attention("sdpa"), Attention::kSdpa);
  EXPECT_EQ(parse_attention("eager"), Attention::kEager);
  InputError e = input_error([] { parse_attention("flash"); });
  EXPECT_EQ(e.where(), "--attention");
  EXPECT_TRUE(mentions(e, "known: sdpa")) << e.what();
}

// ---- options and errors -------------------------------------------------------

TEST(CurrentModels, SequenceUpTo8192) {
  ZooOptions options;
  options.batch = 1;
  options.seq_len = 8192;
  EXPECT_EQ(build_zoo_model("llama3-8b", options).seq_len, 8192);
  options.seq_len = 8193;
  InputError e = input_error([&] { build_zoo_model("llama3-8b", options); });
  EXPECT_EQ(e.where(), "--seq-len");
  EXPECT_TRUE(mentions(e, "between 1 and 8192")) << e.what();
  options.seq_len = 0;
  EXPECT_EQ(input_error([&] { build_zoo_model("mistral-7b", options); }).where(), "--seq-len");
}

TEST(CurrentModels, KeyValueHeadsMustDivideTheHeads) {
  ZooOptions options;
  options.kv_heads = 5;
  InputError e = input_error([&] { build_zoo_model("llama3-8b", options); });
  EXPECT_EQ(e.where(), "--kv-heads");
  EXPECT_TRUE(mentions(e, "5 key/value heads do not divide the 32 attention heads")) << e.what();
  options = ZooOptions();
  options.heads = 12;  // hidden 4096 does not split over 12 heads
  EXPECT_EQ(input_error([&] { build_zoo_model("llama3-8b", options); }).where(), "--heads");
  options.hidden = 3072;  // 12 heads of 256; the preset's 8 kv heads do not divide 12
  EXPECT_EQ(input_error([&] { build_zoo_model("llama3-8b", options); }).where(), "--heads");
  options.kv_heads = 4;
  EXPECT_EQ(build_zoo_model("llama3-8b", options).kv_heads, 4);
  options.kv_heads = 0;
  EXPECT_EQ(input_error([&] { build_zoo_model("llama3-8b", options); }).where(), "--kv-heads");
}

TEST(CurrentModels, LlamaOptionsOnOtherModelsAreErrors) {
  ZooOptions options;
  options.kv_heads = 4;
  InputError e = input_error([&] { build_zoo_model("gpt2", options); });
  EXPECT_EQ(e.where(), "--kv-heads");
  EXPECT_TRUE(mentions(e, "not a Llama-style decoder")) << e.what();
  options = ZooOptions();
  options.tied_embeddings = true;
  EXPECT_EQ(input_error([&] { build_zoo_model("vit_b_16", options); }).where(),
            "--tied-embeddings");
  options = ZooOptions();
  options.layers = 4;
  EXPECT_EQ(input_error([&] { build_zoo_model("resnet50", options); }).where(), "--layers");
}

TEST(CurrentModels, ImagesThePatchesDoNotTileAreErrors) {
  ZooOptions options;
  options.image_size = 230;
  InputError e = input_error([&] { build_zoo_model("vit_b_16", options); });
  EXPECT_EQ(e.where(), "--image-size");
  EXPECT_TRUE(mentions(e, "230 is not a multiple of 16")) << e.what();
  options.image_size = 264;  // a 33 x 33 latent: patch 2 does not tile it
  EXPECT_EQ(input_error([&] { build_zoo_model("dit-xl-2", options); }).where(), "--image-size");
  options.image_size = 512;  // DiT-XL/2 at 512 px: 1024 tokens, same parameters
  EXPECT_EQ(build_zoo_model("dit-xl-2", options).params, build_zoo_model("dit-xl-2").params);
  options.seq_len = 16;
  EXPECT_EQ(input_error([&] { build_zoo_model("vit_l_16", options); }).where(), "--seq-len");
}

}  // namespace
}  // namespace pacml
