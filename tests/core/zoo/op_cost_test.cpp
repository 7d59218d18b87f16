// The analytic cost model: roofline, launch overhead, and the backward rule.
#include "core/zoo/op_cost.h"

#include <gtest/gtest.h>

namespace pacml {
namespace {

DeviceModel simple_device() {
  DeviceModel d;
  d.name = "simple";
  d.peak_flops = {1e12, 4e12, 4e12};
  d.memory_bandwidth = 1e11;
  d.launch_overhead = 1e-5;
  d.efficiency.fill(0.5);
  d.memory_bytes = 1e9;
  return d;
}

TEST(OpCost, ComputeBoundOp) {
  OpWork w;
  w.kind = OpKind::kLinear;
  w.flops = 1e9;  // 1e9 / (1e12 * 0.5) = 2 ms
  w.bytes = 1e6;  // 0.01 ms
  EXPECT_DOUBLE_EQ(op_time_ms(w, simple_device(), Precision::kFp32), 2 + 0.01);
  EXPECT_DOUBLE_EQ(op_time_ms(w, simple_device(), Precision::kFp16), 0.5 + 0.01);
}

TEST(OpCost, MemoryBoundOp) {
  OpWork w;
  w.kind = OpKind::kActivation;
  w.flops = 1e6;
  w.bytes = 1e9;  // 1e9 / 1e11 = 10 ms
  w.kernels = 3;  // + 0.03 ms
  EXPECT_DOUBLE_EQ(op_time_ms(w, simple_device(), Precision::kFp32), 10 + 0.03);
}

TEST(OpCost, EfficiencyIsPerKind) {
  DeviceModel d = simple_device();
  d.efficiency[static_cast<int>(OpKind::kConv)] = 1.0;
  OpWork w;
  w.kind = OpKind::kConv;
  w.flops = 1e9;
  w.kernels = 0;
  EXPECT_DOUBLE_EQ(op_time_ms(w, d, Precision::kFp32), 1.0);
}

TEST(OpCost, WeightedKindsDoubleInBackward) {
  for (OpKind kind : {OpKind::kConv, OpKind::kLinear, OpKind::kMatmul, OpKind::kLstm}) {
    OpWork w;
    w.kind = kind;
    w.flops = 1e9;
    w.bytes = 1e7;
    w.kernels = 1;
    const OpWork b = backward_work(w);
    EXPECT_EQ(b.flops, 2e9);
    EXPECT_EQ(b.bytes, 2e7);
    EXPECT_EQ(b.kernels, 2);
    EXPECT_TRUE(is_weighted_kind(kind));
  }
}

TEST(OpCost, MemoryBoundKindsRepeatTheirForwardInBackward) {
  for (OpKind kind : {OpKind::kNorm, OpKind::kActivation, OpKind::kElementwise, OpKind::kPool,
                      OpKind::kSoftmax}) {
    OpWork w;
    w.kind = kind;
    w.flops = 1e6;
    w.bytes = 1e8;
    const OpWork b = backward_work(w);
    EXPECT_EQ(b.flops, w.flops);
    EXPECT_EQ(b.bytes, w.bytes);
    EXPECT_EQ(b.kernels, w.kernels);
    EXPECT_FALSE(is_weighted_kind(kind));
  }
}

TEST(OpCost, EmbeddingBackwardWritesTheDenseTableGradient) {
  OpWork w;
  w.kind = OpKind::kEmbedding;
  w.bytes = 1e6;
  w.weight_bytes = 1e8;
  const OpWork b = backward_work(w);
  EXPECT_EQ(b.bytes, 1e6 + 1e8);
  EXPECT_EQ(b.kernels, 2);
}

TEST(OpCost, FlashAttentionBackwardRecomputesTheScores) {
  // Two matrix products forward, five backward (the scores recomputed):
  // 2.5x the FLOPs, 2x the bytes (q, k, v, o, dO read; dq, dk, dv written),
  // two kernels; its efficiency stays the matmul kind's.
  OpWork w;
  w.kind = OpKind::kMatmul;
  w.flash_attention = true;
  w.flops = 1e9;
  w.bytes = 1e7;
  const OpWork b = backward_work(w);
  EXPECT_EQ(b.flops, 2.5e9);
  EXPECT_EQ(b.bytes, 2e7);
  EXPECT_EQ(b.kernels, 2);
  EXPECT_EQ(b.kind, OpKind::kMatmul);
  // Compute-bound on the simple device: 2.5e9 / (1e12 * 0.5) = 5 ms + 2 launches.
  EXPECT_DOUBLE_EQ(op_time_ms(b, simple_device(), Precision::kFp32), 5 + 0.02);
}

}  // namespace
}  // namespace pacml
