#include "sim/experiment/blocking_bound.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/evaluation.h"

namespace pacml::sim {
namespace {

// A small reference-profile experiment; β, horizon and job count vary per test.
Experiment small_experiment(const std::string& beta, const std::string& horizon,
                            const std::string& max_jobs = "-1") {
  const std::string yaml =
      "pacml_experiment: 1\n"
      "profile: reference\n"
      "topology: 2x2x2\n"
      "horizon: " +
      horizon +
      "\n"
      "workload: {type: synthetic, graphs: [alexnet, gnmt], interarrival: 500, max_jobs: " +
      max_jobs +
      "}\n"
      "beta: [" +
      beta +
      "]\n"
      "policies: [para_max, para_min, min_feasible, fixed:2]\n"
      "seeds: 3\n";
  return Experiment(parse_experiment(yaml, "bound.yaml", "."));
}

TEST(BlockingBound, LooseDeadlinesLeaveNothingUnservable) {
  // β = 1: degree 1 on an empty cluster meets JCT_seq exactly (no horizon to finish by).
  for (const EpisodeBound& b : experiment_bounds(small_experiment("fixed(1)", "inf", "40"), 1)) {
    EXPECT_EQ(b.arrived, 40);
    EXPECT_EQ(b.unservable, 0) << "seed " << b.seed;
  }
}

TEST(BlockingBound, UnreachableDeadlinesAreAllUnservable) {
  // β = 0.01 asks for a 100× speed-up; 8 servers give at most 8×.
  for (const EpisodeBound& b : experiment_bounds(small_experiment("fixed(0.01)", "20000"), 1)) {
    // Every decided job (the arrival exactly at the horizon is counted, never decided).
    EXPECT_EQ(b.unservable, b.arrived - 1) << "seed " << b.seed;
  }
}

TEST(BlockingBound, JobsThatCannotFinishByTheHorizonAreUnservable) {
  // The one job decided before a 50 ms horizon (arrival 0) needs 56 ms even
  // as alexnet on 8 servers: unservable, although its deadline is loose.
  for (const EpisodeBound& b : experiment_bounds(small_experiment("fixed(1)", "50"), 1)) {
    EXPECT_EQ(b.arrived, 1);
    EXPECT_EQ(b.unservable, 1) << "seed " << b.seed;
  }
}

TEST(BlockingBound, NoPolicyBlocksFewerOnAnySeed) {
  const Experiment experiment = small_experiment("A, B", "20000");
  const std::vector<EpisodeBound> bounds = experiment_bounds(experiment, 2);
  ASSERT_EQ(bounds.size(), 6u);
  bool some_unservable = false;
  for (const GridCell& cell : experiment.grid()) {
    const EpisodeBound& b = bounds[cell.beta * 3 + cell.seed];
    ASSERT_EQ(b.seed, cell.seed);
    const EpisodeTask task = experiment.task(cell, false, false);
    PolicyPtr policy = make_policy(task.policy);
    Environment env(task.config);
    const EpisodeStats s = run_episode(env, *policy, task.seed).stats;
    EXPECT_EQ(s.arrived, b.arrived);
    EXPECT_GE(s.blocked, b.unservable) << cell.policy << " β " << b.beta_dist << " seed " << b.seed;
    some_unservable |= b.unservable > 0;
  }
  EXPECT_TRUE(some_unservable) << "β A and B should draw some deadlines 8 servers cannot meet";
}

TEST(BlockingBound, DeterministicAndIndependentOfThreads) {
  const Experiment experiment = small_experiment("A", "20000");
  const std::vector<EpisodeBound> one = experiment_bounds(experiment, 1);
  const std::vector<EpisodeBound> two = experiment_bounds(experiment, 2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].unservable, two[i].unservable);
  const std::vector<BoundSummary> s = summarize_bounds(one);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].seeds, 3);
  EXPECT_DOUBLE_EQ(s[0].rate.mean, (one[0].rate() + one[1].rate() + one[2].rate()) / 3);
}

}  // namespace
}  // namespace pacml::sim
