// What-if branches of the simulator and the rollout search built on them.
#include "sim/engine/rollout_search.h"

#include <gtest/gtest.h>

#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "sim/engine/episode.h"
#include "sim/workload/synthetic.h"
#include "tests/sim/sim_test_util.h"

namespace pacml::sim {
namespace {

EnvironmentConfig zoo_config(GraphCatalog& catalog, const std::string& beta) {
  SyntheticOptions o;
  o.graphs = pacml::testing::zoo_graphs(catalog);
  o.beta = BetaSpec::parse(beta);
  EnvironmentConfig c;
  c.estimator =
      std::make_shared<JctEstimator>(RampTopology::parse("4x4x2"), Profile::reference(), 50);
  c.workload = std::make_shared<SyntheticWorkload>(o);
  c.horizon = 60000;
  return c;
}

// Branching and stepping the branches leaves the episode exactly as it would
// be without them.
TEST(Branch, WhatIfCopiesDoNotDisturbTheEpisode) {
  GraphCatalog catalog;
  const EnvironmentConfig c = zoo_config(catalog, "C");
  PolicyPtr fixed4 = make_baseline_policy("fixed:4");
  Environment plain(c);
  const EpisodeResult expected = run_episode(plain, *fixed4, 3);
  Environment env(c);
  env.reset(3);
  long branches = 0;
  while (!env.done()) {
    const int occupied = env.cluster().occupied_servers();
    const double time = env.time();
    auto what_if = env.branch(future_stream(c.workload->start(99), env.time()));
    // The branch decides the same job at the same instant on the same cluster.
    EXPECT_EQ(what_if->observe().job->graph, env.observe().job->graph);
    EXPECT_EQ(what_if->time(), time);
    EXPECT_EQ(what_if->cluster().occupied_servers(), occupied);
    for (int k = 0; k < 5 && !what_if->done(); ++k) what_if->step(what_if->choose(*fixed4));
    EXPECT_EQ(env.cluster().occupied_servers(), occupied);
    EXPECT_EQ(env.time(), time);
    ++branches;
    env.step(env.choose(*fixed4));
  }
  EXPECT_GT(branches, 50);
  EXPECT_EQ(env.result().stats.blocked, expected.stats.blocked);
  EXPECT_EQ(env.result().stats.completed, expected.stats.completed);
  EXPECT_DOUBLE_EQ(env.result().stats.throughput, expected.stats.throughput);
  EXPECT_THROW(env.branch(future_stream(c.workload->start(1), 0)), InputError);
}

// A future stream drops the sample's first job and keeps the gaps after it.
TEST(Branch, FutureStreamKeepsTheGapsFromNow) {
  GraphCatalog catalog;
  const EnvironmentConfig c = zoo_config(catalog, "A");
  auto sample = c.workload->start(5);
  const JobSpec first = *sample->next(), second = *sample->next(), third = *sample->next();
  auto future = future_stream(c.workload->start(5), 7000);
  const JobSpec a = *future->next(), b = *future->next();
  EXPECT_EQ(a.arrival, 7000 + second.arrival - first.arrival);
  EXPECT_EQ(b.arrival, 7000 + third.arrival - first.arrival);
  EXPECT_EQ(a.graph, second.graph);
  EXPECT_EQ(b.beta, third.beta);
}

TEST(RolloutSearch, PrefersAcceptingOnAnEmptyClusterAndIsDeterministic) {
  GraphCatalog catalog;
  const EnvironmentConfig c = zoo_config(catalog, "D");
  Environment env(c);
  env.reset(1);
  PolicyPtr fixed4 = make_baseline_policy("fixed:4");
  RolloutSearchConfig rc;
  rc.lookahead = 10;
  rc.samples = 2;
  // Declining now costs the −1 of this job against +1 for accepting it, and an
  // empty cluster leaves later jobs their room either way.
  const std::vector<int> candidates = {0, 4};
  const RolloutSearchResult r = rollout_search(env, candidates, *fixed4, rc, 42);
  ASSERT_EQ(r.value.size(), 2u);
  EXPECT_EQ(r.action, 4);
  EXPECT_GT(r.value[1], r.value[0] + 1.5);
  const RolloutSearchResult again = rollout_search(env, candidates, *fixed4, rc, 42);
  EXPECT_EQ(again.value, r.value);
  // The search did not move the episode.
  EXPECT_EQ(env.cluster().occupied_servers(), 0);
  EXPECT_EQ(env.observe().decision, 0);
  // Equal values keep the first candidate.
  const RolloutSearchResult same = rollout_search(env, {4, 4}, *fixed4, rc, 42);
  EXPECT_EQ(same.value[0], same.value[1]);
  EXPECT_EQ(same.action, 4);
  // A margin larger than the gain keeps the first candidate.
  rc.margin = r.value[1] - r.value[0] + 0.01;
  EXPECT_EQ(rollout_search(env, candidates, *fixed4, rc, 42).action, 0);
  rc.margin = r.value[1] - r.value[0] - 0.01;
  EXPECT_EQ(rollout_search(env, candidates, *fixed4, rc, 42).action, 4);
  EXPECT_THROW(rollout_search(env, {}, *fixed4, rc, 42), std::invalid_argument);
}

}  // namespace
}  // namespace pacml::sim
