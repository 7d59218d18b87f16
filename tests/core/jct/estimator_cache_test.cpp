// The lookahead caches of doc/MODEL.md §6 and sharing one estimator between threads.
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "core/graph/pipedream_reader.h"
#include "core/jct/estimator.h"
#include "core/util/error.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

const RampTopology kPaper = RampTopology::parse("4x4x2");

JobGraph fixture_job() {
  return JobGraph(read_pipedream_file(testing::fixture("tiny.txt")));
}

TEST(LookaheadCache, AHitReturnsWhatTheLookaheadComputed) {
  const JobGraph job = fixture_job();
  for (const Profile& profile : {Profile::reference(), Profile::physical()}) {
    const JctEstimator estimator(kPaper, profile);
    LookaheadCache cache;
    const ClusterState empty(kPaper);
    const Estimate cold = estimator.estimate(job, 4, 0.5, empty, &cache);
    const Estimate warm = estimator.estimate(job, 4, 0.5, empty, &cache);
    EXPECT_FALSE(cold.cache_hit);
    EXPECT_TRUE(warm.cache_hit) << profile.name;
    EXPECT_EQ(cold.jct, warm.jct);
    EXPECT_EQ(cold.comm_time, warm.comm_time);
    EXPECT_EQ(cache.size(), 1u);
  }
}

TEST(LookaheadCache, ABoundedCacheStaysWithinItsBytesAndAnswersTheSame) {
  const JctEstimator estimator(kPaper, Profile::physical());
  const ClusterState empty(kPaper);
  LookaheadCache unbounded, bounded(1000);  // room for about two entries
  std::vector<std::shared_ptr<const JobGraph>> jobs;
  for (std::uint64_t id = 1; id <= 4; ++id)  // one graph under four identities
    jobs.push_back(
        std::make_shared<const JobGraph>(read_pipedream_file(testing::fixture("tiny.txt")), id));
  for (int round = 0; round < 2; ++round)
    for (const auto& job : jobs)
      for (int action : {2, 4})
        EXPECT_EQ(estimator.estimate(*job, action, 0.5, empty, &bounded).jct,
                  estimator.estimate(*job, action, 0.5, empty, &unbounded).jct);
  EXPECT_EQ(unbounded.size(), 8u);
  EXPECT_LT(bounded.size(), 8u);
  EXPECT_GT(bounded.size(), 0u);
  EXPECT_LE(bounded.bytes(), 1000u);
}

TEST(LookaheadCache, GraphsOfDifferentFingerprintsNeverShareEntries) {
  // Same layers, different fingerprints (as GraphSource gives distinct
  // contents): the second is a miss, not the first's entry.
  const JctEstimator estimator(kPaper, Profile::physical());
  const ClusterState empty(kPaper);
  LookaheadCache cache(1 << 20);
  const JobGraph a(read_pipedream_file(testing::fixture("tiny.txt")), 1);
  const JobGraph b(read_pipedream_file(testing::fixture("tiny.txt")), 2);
  EXPECT_FALSE(estimator.estimate(a, 4, 0.5, empty, &cache).cache_hit);
  EXPECT_FALSE(estimator.estimate(b, 4, 0.5, empty, &cache).cache_hit);
  EXPECT_TRUE(estimator.estimate(a, 4, 0.5, empty, &cache).cache_hit);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LookaheadCache, PhysicalKeyIgnoresWhereTheSameShapeSits) {
  // The same block one communication group further along: the physical step
  // depends on the graph and degree only, so the cache shares it.
  const JobGraph job = fixture_job();
  const JctEstimator estimator(kPaper, Profile::physical());
  LookaheadCache cache;
  const ClusterState empty(kPaper);
  ClusterState shifted(kPaper);
  shifted.occupy(9, {0});  // first fit now starts the 2-way block one server later
  const Estimate a = estimator.estimate(job, 2, 1.0, empty, &cache);
  const Estimate b = estimator.estimate(job, 2, 1.0, shifted, &cache);
  EXPECT_NE(a.placement.servers, b.placement.servers);
  EXPECT_TRUE(b.cache_hit);
  EXPECT_EQ(a.jct, b.jct);
  const Estimate uncached = estimator.estimate(job, 2, 1.0, shifted);
  EXPECT_EQ(uncached.jct, b.jct);
}

TEST(LookaheadCache, ReferenceKeyIsModelAndDegree) {
  const JobGraph job = fixture_job();
  const JctEstimator estimator(kPaper, Profile::reference());
  LookaheadCache cache;
  estimator.estimate(job, 2, 1.0, ClusterState(kPaper), &cache);
  estimator.estimate(job, 4, 1.0, ClusterState(kPaper), &cache);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.misses(), 2u);
}

TEST(JctEstimator, ThreadsShareOneEstimatorAndCache) {
  const std::string path = testing::pipedream_path("resnet18");
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  const JctEstimator estimator(kPaper, Profile::physical());
  const ClusterState empty(kPaper);
  std::vector<double> expected;
  for (int a : {2, 4, 8, 16}) expected.push_back(estimator.estimate(job, a, 1.0, empty).jct);
  LookaheadCache cache;
  std::vector<std::vector<double>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (int a : {2, 4, 8, 16})
          seen[t].push_back(estimator.estimate(job, a, 1.0, empty, &cache).jct);
    });
  for (auto& thread : threads) thread.join();
  for (const auto& values : seen)
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], expected[i % 4]);
}

TEST(JctEstimator, RejectsBadActionsAndBeta) {
  const JobGraph job = fixture_job();
  const JctEstimator estimator(kPaper, Profile::physical());
  const ClusterState empty(kPaper);
  EXPECT_THROW(estimator.estimate(job, 3, 1.0, empty), InputError);
  EXPECT_THROW(estimator.estimate(job, 18, 1.0, empty), InputError);
  EXPECT_THROW(estimator.estimate(job, 2, 0.0, empty), InputError);
  EXPECT_THROW(estimator.estimate(job, 2, 1.5, empty), InputError);
  const Estimate declined = estimator.estimate(job, 0, 1.0, empty);
  EXPECT_EQ(declined.blocked, BlockCause::kDeclined);
}

}  // namespace
}  // namespace pacml
