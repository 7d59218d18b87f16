// The baseline policies of doc/MODEL.md §8 on hand-made masks.
#include <gtest/gtest.h>

#include "core/graph/pipedream_reader.h"
#include "core/jct/estimator.h"
#include "core/placement/action_mask.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

struct Fixture {
  RampTopology topology = RampTopology::parse("4x4x2");
  ClusterState cluster{topology};
  JctEstimator estimator{topology, Profile::reference()};
  JobGraph job{read_pipedream_file(testing::fixture("tiny.txt"))};
  Rng rng{7};

  int choose(const std::string& policy, const std::vector<bool>& mask, double beta) {
    PolicyPtr p = make_baseline_policy(policy);
    DecisionContext c{job, beta, cluster, mask, estimator, nullptr, rng};
    return p->choose(c);
  }
};

std::vector<bool> mask_of(std::initializer_list<int> actions) {
  std::vector<bool> mask(17, false);
  for (int a : actions) mask[a] = true;
  return mask;
}

TEST(Baselines, FollowTheirRules) {
  Fixture f;
  const auto mask = mask_of({0, 1, 2, 4, 8});
  EXPECT_EQ(f.choose("para_max", mask, 0.5), 8);
  EXPECT_EQ(f.choose("para_min", mask, 0.3), 4);  // ceil(1/0.3) = 4
  EXPECT_EQ(f.choose("para_min", mask, 1.0), 1);
  EXPECT_EQ(f.choose("para_min", mask, 0.1), 8);  // nothing ≥ 10: largest
  EXPECT_EQ(f.choose("sequential", mask, 0.5), 1);
  EXPECT_EQ(f.choose("sequential", mask_of({0, 2}), 0.5), 0);
  EXPECT_EQ(f.choose("fixed:4", mask, 0.5), 4);
  EXPECT_EQ(f.choose("fixed:6", mask, 0.5), 0);
  EXPECT_EQ(f.choose("para_max", mask_of({0}), 0.5), 0);
}

TEST(Baselines, RandomPicksOnlyValidNonZeroActionsDeterministically) {
  Fixture f;
  const auto mask = mask_of({0, 2, 8});
  std::vector<int> first;
  for (int i = 0; i < 200; ++i) {
    const int a = f.choose("random", mask, 0.5);
    EXPECT_TRUE(a == 2 || a == 8) << a;
    first.push_back(a);
  }
  Fixture g;  // same seed, same choices
  for (int i = 0; i < 200; ++i) EXPECT_EQ(g.choose("random", mask, 0.5), first[i]);
  EXPECT_EQ(f.choose("random", mask_of({0}), 0.5), 0);
}

TEST(Baselines, MinFeasibleTakesTheSmallestActionThatMeetsTheDeadline) {
  Fixture f;
  const auto mask = action_mask(f.cluster, 16);
  const int a = f.choose("min_feasible", mask, 0.3);
  ASSERT_GT(a, 0);
  EXPECT_TRUE(f.estimator.estimate(f.job, a, 0.3, f.cluster).accepted());
  for (int smaller : valid_actions(mask)) {
    if (smaller > 0 && smaller < a) {
      EXPECT_FALSE(f.estimator.estimate(f.job, smaller, 0.3, f.cluster).accepted());
    }
  }
}

TEST(Baselines, UnknownNamesAreRejectedWithTheKnownList) {
  for (const char* bad : {"para_mux", "fixed:3", "fixed:x", "fixed:18", ""}) {
    try {
      make_baseline_policy(bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--policy"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pacml
