// The layer builder: shape tracking, parameter counts, costs and edges.
#include "core/zoo/layer_builder.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/util/error.h"

namespace pacml::zoo {
namespace {

using Kind = LayerBuilder::InputKind;

LayerBuilder fp32_builder() {
  return LayerBuilder("test", Precision::kFp32, DeviceModel::a100());
}

TEST(LayerBuilder, ConvolutionShapesAndParameters) {
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("input", {2, 3, 224, 224}, Kind::kValues, "Input");
  Tensor y = b.conv2d("conv", x, conv_spec(64, 11, 4, 2));
  EXPECT_EQ(y.shape, (std::vector<long>{2, 64, 55, 55}));
  EXPECT_EQ(b.parameter_count(), 64 * 3 * 11 * 11 + 64);
  Tensor z = b.conv2d("rect", y, rect_conv_spec(32, 1, 7, 1, 1, 0, 3, false));
  EXPECT_EQ(z.shape, (std::vector<long>{2, 32, 55, 55}));
  EXPECT_EQ(b.parameter_count(), 64 * 3 * 11 * 11 + 64 + 32 * 64 * 7);
  Conv2dSpec grouped = conv_spec(64, 3, 2, 1, false);
  grouped.groups = 32;
  Tensor g = b.conv2d("grouped", z, grouped);
  EXPECT_EQ(g.shape, (std::vector<long>{2, 64, 28, 28}));
  EXPECT_EQ(b.parameter_count(), 64 * 3 * 11 * 11 + 64 + 32 * 64 * 7 + 64 * 1 * 9);
}

TEST(LayerBuilder, PoolingFollowsPyTorchIncludingCeilMode) {
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("input", {1, 96, 109, 109}, Kind::kValues, "Input");
  EXPECT_EQ(b.max_pool("floor", x, Pool2dSpec{3, 2, 0, false}).shape[2], 54);
  EXPECT_EQ(b.max_pool("ceil", x, Pool2dSpec{3, 2, 0, true}).shape[2], 54);
  Tensor y = b.input("odd", {1, 8, 55, 55}, Kind::kValues, "Input");
  EXPECT_EQ(b.max_pool("ceil55", y, Pool2dSpec{3, 2, 0, true}).shape[2], 27);
  Tensor z = b.input("even", {1, 8, 56, 56}, Kind::kValues, "Input");
  EXPECT_EQ(b.max_pool("floor56", z, Pool2dSpec{3, 2, 0, false}).shape[2], 27);
  EXPECT_EQ(b.max_pool("ceil56", z, Pool2dSpec{3, 2, 0, true}).shape[2], 28);
  EXPECT_EQ(b.adaptive_avg_pool("adaptive", z, 1, 1).shape, (std::vector<long>{1, 8, 1, 1}));
}

TEST(LayerBuilder, SequenceLayers) {
  LayerBuilder b = fp32_builder();
  Tensor ids = b.input("ids", {4, 10}, Kind::kTokenIds, "Input");
  Tensor e = b.embedding("emb", ids, 1000, 32);
  EXPECT_EQ(e.shape, (std::vector<long>{4, 10, 32}));
  Tensor l = b.lstm("lstm", e, 16, true);
  EXPECT_EQ(l.shape, (std::vector<long>{4, 10, 32}));
  Tensor s = b.sum_directions("sum", l);
  EXPECT_EQ(s.shape, (std::vector<long>{4, 10, 16}));
  Tensor f = b.linear("fc", s, 7, false);
  EXPECT_EQ(f.shape, (std::vector<long>{4, 10, 7}));
  // embedding + 2 directions * (4H(I+H) + 8H) + linear without bias
  EXPECT_EQ(b.parameter_count(), 1000 * 32 + 2 * (4 * 16 * (32 + 16) + 8 * 16) + 16 * 7);
  const LayerGraph g = b.finish(b.loss("loss", {f}, "Loss"));
  // Token ids are int64 whatever the precision.
  EXPECT_EQ(g.layers[0].activation_bytes, 4 * 10 * 8);
  EXPECT_EQ(g.layers[1].activation_bytes, 4 * 10 * 32 * 4);
}

TEST(LayerBuilder, SharedWeightsAreNotCountedTwice) {
  LayerBuilder b = fp32_builder();
  Tensor ids = b.input("ids", {2, 8}, Kind::kTokenIds, "Input");
  Tensor e = b.embedding("emb", ids, 100, 16);
  Tensor out = b.linear("head", e, 100, false, Weights::kShared);
  EXPECT_EQ(b.parameter_count(), 100 * 16);
  const LayerGraph g = b.finish(b.loss("loss", {out}, "Loss"));
  EXPECT_EQ(g.layers[2].parameter_bytes, 0);
  EXPECT_GT(g.layers[2].forward_time, 0);  // the tied matrix is still multiplied
}

TEST(LayerBuilder, AttentionShapesAndOneEdgePerProducer) {
  LayerBuilder b = fp32_builder();
  Tensor ids = b.input("ids", {2, 8}, Kind::kTokenIds, "Input");
  Tensor x = b.embedding("emb", ids, 100, 64);
  Tensor qkv = b.linear("qkv", x, 192);
  Tensor q{qkv.layer, x.shape};
  Tensor scores = b.attention_scores("scores", q, q, 4);
  EXPECT_EQ(scores.shape, (std::vector<long>{2, 4, 8, 8}));
  Tensor probs = b.softmax("softmax", scores);
  Tensor context = b.attention_context("context", probs, q);
  EXPECT_EQ(context.shape, (std::vector<long>{2, 8, 64}));
  const LayerGraph g = b.finish(b.loss("loss", {context}, "Loss"));
  int into_scores = 0, into_context = 0;
  for (const LayerEdge& e : g.edges) {
    into_scores += e.dst == scores.layer;
    into_context += e.dst == context.layer;
  }
  EXPECT_EQ(into_scores, 1);   // q and k both come from qkv
  EXPECT_EQ(into_context, 2);  // probs and v
}

TEST(LayerBuilder, FusedAttentionKeepsNoScoresAndHalvesCausalFlops) {
  // N 2, T 8, 4 query heads of 16, 2 key/value heads (GQA), fp32.
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("x", {2, 8, 64}, Kind::kValues, "Input");
  Tensor q = b.linear("q", x, 64, false);
  Tensor k = b.linear("k", x, 32, false);
  Tensor v = b.linear("v", x, 32, false);
  Tensor full = b.fused_attention("full", q, k, v, 4, false);
  Tensor causal = b.fused_attention("causal", q, k, v, 4, true);
  EXPECT_EQ(full.shape, (std::vector<long>{2, 8, 64}));
  const LayerGraph g = b.finish(b.loss("loss", {full, causal}, "Loss"));
  const Layer& f = g.layers[full.layer];
  const Layer& c = g.layers[causal.layer];
  // Saved: the output (2 * 8 * 64 fp32) and the logsumexp (2 * 4 heads * 8 rows fp32).
  EXPECT_DOUBLE_EQ(f.activation_bytes, 2 * 8 * 64 * 4 + 2 * 4 * 8 * 4);
  EXPECT_EQ(f.label, "ScaledDotProductAttention(heads=4, kv_heads=2)");
  EXPECT_EQ(c.label, "ScaledDotProductAttention(heads=4, kv_heads=2, is_causal=True)");
  // Forward FLOPs 4 N T S D = 4 * 2 * 8 * 8 * 64 = 32768; at this size the
  // op is launch-bound, so compare the work through the op cost instead.
  OpWork w;
  w.kind = OpKind::kMatmul;
  w.flash_attention = true;
  w.flops = 32768;
  w.bytes = (2 * 8 * 64 + 2 * (2 * 8 * 32) + 2 * 8 * 64) * 4 + 2 * 4 * 8 * 4;
  EXPECT_DOUBLE_EQ(f.forward_time, op_time_ms(w, DeviceModel::a100(), Precision::kFp32));
  EXPECT_DOUBLE_EQ(f.backward_time,
                   op_time_ms(backward_work(w), DeviceModel::a100(), Precision::kFp32));
  w.flops /= 2;
  EXPECT_DOUBLE_EQ(c.forward_time, op_time_ms(w, DeviceModel::a100(), Precision::kFp32));
  int into_full = 0;
  for (const LayerEdge& e : g.edges) into_full += e.dst == full.layer;
  EXPECT_EQ(into_full, 3);  // q, k, v
}

TEST(LayerBuilder, EagerGroupedQueryAttentionRepeatsKeysAndValues) {
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("x", {2, 8, 64}, Kind::kValues, "Input");
  Tensor k = b.linear("k", x, 16, false);
  Tensor repeated = b.repeat_kv("repeat_k", k, 4);
  EXPECT_EQ(repeated.shape, (std::vector<long>{2, 8, 64}));
  Tensor r = b.rotary("rotary", x, 16);
  EXPECT_EQ(r.shape, x.shape);
  Tensor n = b.rms_norm("norm", x);
  const LayerGraph g = b.finish(b.loss("loss", {repeated, r, n}, "Loss"));
  EXPECT_EQ(g.layers[r.layer].parameter_bytes, 0);       // RoPE has no parameters
  EXPECT_EQ(g.layers[n.layer].parameter_bytes, 64 * 4);  // RMSNorm: a weight only
}

TEST(LayerBuilder, ResidualAndConcatEdges) {
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("input", {1, 8, 4, 4}, Kind::kValues, "Input");
  Tensor a = b.relu("a", x);
  Tensor c = b.relu("c", x);
  Tensor sum = b.add("sum", {a, x});
  EXPECT_EQ(sum.shape, x.shape);
  Tensor cat = b.concat("cat", {sum, c}, 1);
  EXPECT_EQ(cat.shape, (std::vector<long>{1, 16, 4, 4}));
  const LayerGraph g = b.finish(b.loss("loss", {cat}, "Loss"));
  EXPECT_EQ(g.num_edges(), 2 + 2 + 2 + 1);
  EXPECT_EQ(g.output_layer, g.num_layers() - 1);
}

TEST(LayerBuilder, TooSmallInputIsAnInputError) {
  LayerBuilder b = fp32_builder();
  Tensor x = b.input("input", {1, 3, 8, 8}, Kind::kValues, "Input");
  try {
    b.conv2d("big", x, conv_spec(4, 11));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "test: the input is too small for this model: layer 'big' would have an empty "
              "output [1, 4, 0, 0]");
  }
}

TEST(LayerBuilder, CostsScaleWithPrecision) {
  LayerBuilder full("t", Precision::kFp32, DeviceModel::a100());
  LayerBuilder half("t", Precision::kFp16, DeviceModel::a100());
  Tensor a = full.input("x", {64, 1024}, Kind::kValues, "Input");
  Tensor b = half.input("x", {64, 1024}, Kind::kValues, "Input");
  a = full.linear("fc", a, 4096);
  b = half.linear("fc", b, 4096);
  const LayerGraph gf = full.finish(a), gh = half.finish(b);
  EXPECT_EQ(gh.layers[1].activation_bytes * 2, gf.layers[1].activation_bytes);
  EXPECT_EQ(gh.layers[1].parameter_bytes * 2, gf.layers[1].parameter_bytes);
  EXPECT_LT(gh.layers[1].forward_time, gf.layers[1].forward_time);
}

}  // namespace
}  // namespace pacml::zoo
