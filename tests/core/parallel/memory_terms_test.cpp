// Each strategy's memory terms against values computed by hand (issue 29;
// doc/PHYSICAL.md §3, the memory model): Llama 3.2 1B, bf16 autocast, AdamW,
// on 8 GPUs of one DGX H100. P = 1,235,814,400 parameters (the model card's
// count, tied embeddings; tests/core/zoo/current_models_test.cpp).
#include <gtest/gtest.h>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/physical_estimator.h"

namespace pacml {
namespace {

constexpr double kP = 1235814400;
// The largest unit FSDP gathers: the token embedding, 128,256 x 2,048 values
// (a decoder block holds 2,048 x 5,120 attention + 3 x 2,048 x 8,192 MLP
// + 2 x 2,048 norm values = 60,821,504, fewer).
constexpr double kEmbedding = 128256.0 * 2048;

ParallelPlan plan_of(Strategy strategy, bool checkpointing = false) {
  ZooOptions options;
  options.batch = 8;
  options.seq_len = 2048;
  options.precision = Precision::kBf16;
  const PhysicalEstimator estimator(load_cluster("dgx-h100-4x8", "test"));
  options.device = estimator.cluster().device;
  TrainingOptions training;
  training.activation_checkpointing = checkpointing;
  training.optimizer = Optimizer::kAdamW;
  const ParallelJobPtr job = ParallelJob::from_zoo("llama3.2-1b", options, training);
  return estimator.plan(*job, 8, strategy);
}

TEST(MemoryTerms, DataParallelismKeepsEverythingOnEveryRank) {
  const ParallelPlan p = plan_of(Strategy::kData);
  ASSERT_EQ(p.strategy, Strategy::kData);
  EXPECT_DOUBLE_EQ(p.memory.weights, 4 * kP);          // fp32 master weights
  EXPECT_DOUBLE_EQ(p.memory.gradients, 4 * kP);        // fp32 gradients
  EXPECT_DOUBLE_EQ(p.memory.optimizer_state, 8 * kP);  // AdamW: two fp32 moments
  EXPECT_DOUBLE_EQ(p.memory.cast_weights, 2 * kP);     // autocast's bf16 copies
  EXPECT_EQ(p.memory.gathered_units, 0);
  EXPECT_DOUBLE_EQ(p.memory_per_gpu, p.memory.peak());
  EXPECT_DOUBLE_EQ(p.memory.verdict(), p.memory.peak() + 2e9);  // what no tensor holds
}

TEST(MemoryTerms, Zero1ShardsOnlyTheOptimizerState) {
  const ParallelPlan p = plan_of(Strategy::kZero1);
  ASSERT_EQ(p.strategy, Strategy::kZero1);
  EXPECT_DOUBLE_EQ(p.memory.weights, 4 * kP);
  EXPECT_DOUBLE_EQ(p.memory.gradients, 4 * kP);
  EXPECT_DOUBLE_EQ(p.memory.optimizer_state, 8 * kP / 8);
  EXPECT_DOUBLE_EQ(p.memory.cast_weights, 2 * kP);
}

TEST(MemoryTerms, FsdpShardsEverythingAndGathersTwoUnitsAndOneGradient) {
  const ParallelPlan p = plan_of(Strategy::kFsdp);
  ASSERT_EQ(p.strategy, Strategy::kFsdp);
  EXPECT_DOUBLE_EQ(p.memory.weights, 4 * kP / 8);
  EXPECT_DOUBLE_EQ(p.memory.gradients, 4 * kP / 8);
  EXPECT_DOUBLE_EQ(p.memory.optimizer_state, 8 * kP / 8);
  EXPECT_EQ(p.memory.cast_weights, 0);  // gathered in bf16: nothing left to cast
  // Two units gathered at once (the prefetch) and one unit's whole
  // gradient, in bf16: 3 x 2 bytes x the largest unit.
  EXPECT_DOUBLE_EQ(p.memory.gathered_units, 3 * 2 * kEmbedding);
}

TEST(MemoryTerms, CheckpointingKeepsBlockInputsInsteadOfEveryOutput) {
  const ParallelPlan full = plan_of(Strategy::kData);
  const ParallelPlan ckpt = plan_of(Strategy::kData, true);
  // Parameters are untouched; the saved activations fall. A rank runs one
  // sample (batch 8 over 8 GPUs); each of the 16 blocks keeps its input,
  // 2,048 tokens x 2,048 x 2 bytes = 8.4 MB, where without checkpointing it
  // keeps every output inside the block (q, k, v, the attention output, the
  // MLP's three 8,192-wide tensors, ...): more than ten times as much. The
  // rest under checkpointing is the root's outputs (the 128,256-wide logits)
  // and one block recomputed.
  EXPECT_DOUBLE_EQ(ckpt.memory.weights, full.memory.weights);
  const double block_inputs = 16 * 1 * 2048 * 2048 * 2.0;
  EXPECT_GT(ckpt.memory.activations, block_inputs);
  EXPECT_LT(ckpt.memory.activations - block_inputs, full.memory.activations / 2);
  EXPECT_GT(full.memory.activations - ckpt.memory.activations, 10 * block_inputs);
}

}  // namespace
}  // namespace pacml
