// The physical profile on a two-layer graph, computed by hand.
//
// Layers A -> B (output B). Times in ms, sizes in bytes:
//   A: forward 2, backward 4, activation 4e8, parameters 2e8
//   B: forward 1, backward 2, activation 1e8, parameters 1e8
// Step graph: fA -> fB (carries A_A), join fB -> bB (carries A_B), bB -> bA
// (carries A_A). Physical: seconds throughout, compute = ms × 1e-3.
#include <gtest/gtest.h>

#include "core/jct/estimator.h"

namespace pacml {
namespace {

JobGraph two_layer_job() {
  LayerGraph g;
  g.model_name = "two-layer";
  g.layers = {{"A", "", 2.0, 4.0, 4e8, 2e8}, {"B", "", 1.0, 2.0, 1e8, 1e8}};
  g.edges = {{0, 1}};
  g.output_layer = 1;
  return JobGraph(std::move(g));
}

TEST(PhysicalProfile, OneWorkerRunsTheOpsBackToBack) {
  // a = 1: one server, no communication. fA 2 ms, fB 1 ms, bB 2 ms, bA 4 ms.
  // T_step = 9 ms = 0.009 s; JCT = 50 × 0.009 = 0.45 s = JCT_seq.
  const JobGraph job = two_layer_job();
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::physical(), 50);
  const Estimate e = estimator.estimate(job, 1, 1.0, ClusterState(estimator.topology()));
  ASSERT_TRUE(e.placed);
  EXPECT_NEAR(e.jct, 0.45, 1e-12);
  EXPECT_NEAR(e.sequential_jct, 0.45, 1e-12);
  EXPECT_NEAR(e.speedup, 1.0, 1e-12);
  EXPECT_EQ(e.comm_time, 0);
  EXPECT_TRUE(e.accepted());
}

TEST(PhysicalProfile, TwoWorkersPayForTheirCollectives) {
  // a = 2: both layers split 2 ways on servers (0,0,0) and (1,0,0) — two
  // communication groups, one rack index, one server index.
  // Collective T(msg) with x = 4, BW = 4e11 (D = 1e11), E(2) = 4:
  //   m0 = msg / 2; comm = 50e-9 + 2·100e-9 + m0 / 4e11;
  //   comp = (1·m0/2) / (2e12·1/(2·3)) = 1.5e-12·m0;  T = 2·comm + comp.
  // fA->fB: 4 sub-edges of 4e8/2 = 2e8 → msg 8e8 → T1 = 2·(2.5e-7 + 1e-3) + 6e-4 = 2.6005e-3
  // join:   4 sub-edges of 1e8/2 = 5e7 → msg 2e8 → T2 = 2·(2.5e-7 + 2.5e-4) + 1.5e-4 = 6.505e-4
  // bB->bA: like fA->fB → T1.  Sync bA: 2 × 2e8/2 → msg 2e8 → T2.
  // Sync bB: 2 × 1e8/2 → msg 1e8 → T3 = 2·(2.5e-7 + 1.25e-4) + 7.5e-5 = 3.255e-4
  // Timeline (s): fA 1e-3 → T1 → 3.6005e-3, fB +0.5e-3 → 4.1005e-3, join +T2 → 4.751e-3,
  // bB +1e-3 → 5.751e-3; its sync (T3) has priority on the channel and ends at
  // 6.0765e-3, then the bB->bA flows end at 5.751e-3 + T1 = 8.3515e-3; bA +2e-3
  // → 10.3515e-3; bA's sync +T2 → 11.002e-3 = T_step. JCT = 50 × T_step = 0.5501 s.
  const JobGraph job = two_layer_job();
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::physical(), 50);
  const Estimate e = estimator.estimate(job, 2, 1.0, ClusterState(estimator.topology()));
  ASSERT_TRUE(e.placed);
  EXPECT_EQ(e.placement.servers, (std::vector<int>{0, 8}));
  EXPECT_NEAR(e.jct, 0.5501, 1e-12);
  EXPECT_NEAR(e.speedup, 0.45 / 0.5501, 1e-12);
  // Flows in flight: T1 + T2 + (T3 + the rest of T1) + T2 = 2·T1 + 2·T2 per step.
  EXPECT_NEAR(e.comm_time, 50 * (2 * 2.6005e-3 + 2 * 6.505e-4), 1e-12);
  EXPECT_NEAR(e.comp_time, 50 * (1e-3 + 0.5e-3 + 1e-3 + 2e-3), 1e-12);
  EXPECT_EQ(e.overlap_time, 0);
  // Slower than one GPU: with β = 1 the job misses its requirement.
  EXPECT_EQ(e.blocked, BlockCause::kDeadline);
}

TEST(PhysicalProfile, ReferenceProfileMakesTheSameCommunicationAlmostFree) {
  // The reference adds seconds of communication to milliseconds of compute.
  const JobGraph job = two_layer_job();
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::reference(), 50);
  const Estimate e = estimator.estimate(job, 2, 1.0, ClusterState(estimator.topology()));
  ASSERT_TRUE(e.placed);
  EXPECT_NEAR(e.jct, 225.0, 1.0);  // ≈ half of JCT_seq = 450 ms
}

}  // namespace
}  // namespace pacml
