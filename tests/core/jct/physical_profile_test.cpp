// The paper world's physical profile: each degree timed by the physical
// model's op strategy on the paper's cluster (doc/PHYSICAL.md §3), so the
// paper-style simulator sees the speed-ups `pacml estimate --strategy op`
// prints; the reference profile keeps the paper's lookahead.
#include <gtest/gtest.h>

#include "core/cluster/cluster_spec.h"
#include "core/jct/estimator.h"
#include "core/parallel/physical_estimator.h"

namespace pacml {
namespace {

// A compute-heavy chain: 8 layers of 20 + 40 ms (at the profiled batch of
// 64), 10 MB activations and 1M parameters each.
LayerGraph heavy_chain() {
  LayerGraph g;
  g.model_name = "heavy-chain";
  for (int i = 0; i < 8; ++i) {
    g.layers.push_back({"L" + std::to_string(i), "", 20.0, 40.0, 1e7, 1e6});
    if (i > 0) g.edges.push_back({i - 1, i});
  }
  g.output_layer = 7;
  return g;
}

// The op strategy's step time on `gpus` GPUs of the paper's 4x4x2 cluster.
double op_step_time(const LayerGraph& layers, int gpus) {
  const PhysicalEstimator physical(ClusterSpec::paper(RampTopology::parse("4x4x2")));
  const ParallelJobPtr job = ParallelJob::from_graph(layers, kDefaultProfiledBatch, 0);
  const ParallelPlan plan = physical.plan(*job, gpus, Strategy::kOp);
  EXPECT_TRUE(plan.ok()) << plan.why;
  return plan.step_time;
}

TEST(PhysicalProfile, EachDegreeIsTheOpStrategysStep) {
  const JobGraph job(heavy_chain());
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::physical(), 50);
  const ClusterState empty(estimator.topology());
  const double one_gpu = op_step_time(job.layers(), 1);
  EXPECT_NEAR(estimator.sequential_jct(job), 50 * one_gpu, 1e-12);
  double previous = INFINITY;
  for (int a : {1, 2, 4, 8}) {
    const Estimate e = estimator.estimate(job, a, 1.0, empty);
    ASSERT_TRUE(e.placed) << a;
    EXPECT_EQ(e.degree, a);
    EXPECT_EQ(e.servers_used(), a);  // one A100 per server
    EXPECT_NEAR(e.jct, 50 * op_step_time(job.layers(), a), 1e-12) << a;
    EXPECT_LT(e.jct, previous) << a;  // compute-heavy: more GPUs, faster
    EXPECT_LE(e.speedup, a * (1 + 1e-12)) << a;
    EXPECT_GT(e.comp_time, 0);
    previous = e.jct;
  }
  EXPECT_GT(estimator.estimate(job, 4, 1.0, empty).speedup, 2.5);
}

TEST(PhysicalProfile, RequirementsAreTheJobsOwnOneGpuTime) {
  const JobGraph job(heavy_chain());
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::physical(), 50);
  const ClusterState empty(estimator.topology());
  // β = 1 is met by one GPU exactly (no summation-order rounding blocks it)
  EXPECT_TRUE(estimator.estimate(job, 1, 1.0, empty).accepted());
  // β = 0.4 needs at least 2.5x: degree 2 cannot, degree 8 can
  EXPECT_EQ(estimator.estimate(job, 2, 0.4, empty).blocked, BlockCause::kDeadline);
  EXPECT_TRUE(estimator.estimate(job, 8, 0.4, empty).accepted());
}

TEST(PhysicalProfile, TheCacheGivesTheSameTimes) {
  const JobGraph job(heavy_chain());
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::physical(), 50);
  const ClusterState empty(estimator.topology());
  LookaheadCache cache(1 << 20);
  const Estimate first = estimator.estimate(job, 4, 1.0, empty, &cache);
  const Estimate again = estimator.estimate(job, 4, 1.0, empty, &cache);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_EQ(first.jct, again.jct);
  EXPECT_EQ(first.jct, estimator.estimate(job, 4, 1.0, empty).jct);
}

TEST(PhysicalProfile, ReferenceProfileMakesCommunicationAlmostFree) {
  // The reference adds seconds of communication to milliseconds of compute:
  // two workers halve the job.
  const JobGraph job(heavy_chain());
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::reference(), 50);
  const Estimate e = estimator.estimate(job, 2, 1.0, ClusterState(estimator.topology()));
  ASSERT_TRUE(e.placed);
  EXPECT_NEAR(e.speedup, 2.0, 0.01);
}

}  // namespace
}  // namespace pacml
