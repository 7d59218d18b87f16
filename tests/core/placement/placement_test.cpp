// doc/MODEL.md §4: block shapes, RAMP first fit and the action mask.
#include <gtest/gtest.h>

#include <set>

#include "core/graph/pipedream_reader.h"
#include "core/jct/estimator.h"
#include "core/placement/action_mask.h"
#include "core/placement/block_shapes.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

const RampTopology kPaper = RampTopology::parse("4x4x2");

TEST(BlockShapes, OnThePaperClusterOnlyTheseEvenSplitsHaveShapes) {
  std::set<int> placeable;
  for (int s = 1; s <= 16; ++s)
    if (has_block_shape(s, kPaper) && (s == 1 || s % 2 == 0)) placeable.insert(s);
  EXPECT_EQ(placeable, (std::set<int>{1, 2, 4, 6, 8, 16}));
  // Beyond the action space bigger blocks exist: 3x3x2 = 18, 4x4x2 = 32.
  EXPECT_TRUE(has_block_shape(18, kPaper));
  EXPECT_TRUE(has_block_shape(32, kPaper));
  EXPECT_FALSE(has_block_shape(33, kPaper));
}

TEST(BlockShapes, CandidateOrderFollowsTheFactorPairs) {
  // s = 8: i = 2 gives the square (2,2,2), then (4,1,2) and (4,2,1); the
  // diagonal and (8,1,1) come last.
  const std::vector<BlockShape> shapes = candidate_shapes(8, kPaper);
  ASSERT_EQ(shapes.size(), 5u);
  EXPECT_EQ(shapes[0], (BlockShape{2, 2, 2, false}));
  EXPECT_EQ(shapes[1], (BlockShape{4, 1, 2, false}));
  EXPECT_EQ(shapes[2], (BlockShape{4, 2, 1, false}));
  EXPECT_TRUE(shapes[3].diagonal);
  EXPECT_EQ(shapes[4], (BlockShape{8, 1, 1, false}));
  EXPECT_EQ(candidate_shapes(16, kPaper).front(), (BlockShape{4, 4, 1, false}));
}

TEST(ActionMask, EmptyClusterAllowsTheShapedActions) {
  const ClusterState empty(kPaper);
  const std::vector<int> valid = valid_actions(action_mask(empty, 16));
  EXPECT_EQ(valid, (std::vector<int>{0, 1, 2, 4, 6, 8, 16}));
}

TEST(ActionMask, FullClusterAllowsOnlyDecline) {
  ClusterState full(kPaper);
  std::vector<int> all;
  for (int s = 0; s < kPaper.num_servers(); ++s) all.push_back(s);
  full.occupy(7, all);
  EXPECT_EQ(valid_actions(action_mask(full, 16)), (std::vector<int>{0}));
}

TEST(ActionMask, ActionsLargerThanTheFreeServersAreMasked) {
  ClusterState cluster(kPaper);
  std::vector<int> taken;
  for (int s = 0; s < 27; ++s) taken.push_back(s);  // 5 left
  cluster.occupy(1, taken);
  EXPECT_EQ(valid_actions(action_mask(cluster, 16)), (std::vector<int>{0, 1, 2, 4}));
}

TEST(FirstFit, GnmtUsesMoreServersThanItsAction) {
  const std::string path = testing::pipedream_path("gnmt");
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  const JctEstimator estimator(kPaper, Profile::reference());
  const ClusterState empty(kPaper);
  EXPECT_EQ(estimator.estimate(job, 8, 1.0, empty).servers_used(), 10);
  EXPECT_EQ(estimator.estimate(job, 16, 1.0, empty).servers_used(), 21);
}

TEST(FirstFit, NeverUsesAnotherJobsServers) {
  const std::string path = testing::pipedream_path("resnet18");
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  ClusterState cluster(kPaper);
  cluster.occupy(1, {0, 1, 2, 3, 8, 9});
  const Estimate e = JctEstimator(kPaper, Profile::reference()).estimate(job, 8, 1.0, cluster);
  ASSERT_TRUE(e.placed);
  for (int server : e.placement.servers) EXPECT_TRUE(cluster.is_free(server)) << server;
}

TEST(FirstFit, FragmentedClusterFailsAMaskedValidAction) {
  // 16 servers free, but half of them sit at s = 0 in groups 0-1 and half at
  // s = 1 in groups 2-3: no 4x4x1 block is free, yet a = 16 is in the mask.
  ClusterState cluster(kPaper);
  std::vector<int> taken;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) taken.push_back(kPaper.index(c, r, c < 2 ? 1 : 0));
  cluster.occupy(42, taken);
  ASSERT_EQ(cluster.free_servers(), 16);
  ASSERT_TRUE(action_mask(cluster, 16)[16]);
  const std::string path = testing::pipedream_path("alexnet");
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  const Estimate e = JctEstimator(kPaper, Profile::reference()).estimate(job, 16, 1.0, cluster);
  EXPECT_FALSE(e.placed);
  EXPECT_EQ(e.blocked, BlockCause::kNoPlacement);
  EXPECT_NE(e.failure.find("no free block"), std::string::npos);
}

TEST(ClusterState, OccupyAndRelease) {
  ClusterState cluster(kPaper);
  cluster.occupy(3, {4, 5});
  EXPECT_EQ(cluster.free_servers(), 30);
  EXPECT_THROW(cluster.occupy(4, {5}), std::logic_error);
  EXPECT_EQ(cluster.release(3), 2);
  EXPECT_EQ(cluster.free_servers(), 32);
}

}  // namespace
}  // namespace pacml
