// The learned policy as a Policy: a masked action is never chosen (greedy or
// sampled, even when the network prefers it), whole episodes, caching.
#include <gtest/gtest.h>

#include "core/inference/learned_policy.h"
#include "core/inference/network.h"
#include "core/placement/action_mask.h"
#include "tests/core/learning_test_util.h"

namespace pacml {
namespace {

// Weights whose policy strongly prefers the actions in `favoured`, in that order.
inference::WeightsFile biased_weights(const std::vector<int>& favoured,
                                      const features::Normalisers& norm) {
  auto w = testing::random_weights(11, "reference", norm, 0.3);
  for (auto& t : w.tensors)
    if (t.name == "pi2.bias")
      for (size_t k = 0; k < favoured.size(); ++k)
        t.data[favoured[k]] = 1e4f / static_cast<float>(k + 1);
  return w;
}

TEST(LearnedPolicy, NeverChoosesAMaskedOrInfeasibleAction) {
  const auto graphs = testing::real_graphs();
  const JctEstimator est(RampTopology::parse("4x4x2"), Profile::reference());
  const auto norm = features::compute_normalisers(graphs, est);
  // The network wants 16 and 0 above all; masks then forbid them.
  auto model =
      std::make_shared<const inference::LearnedModel>(biased_weights({16, 3, 5}, norm), "biased");
  inference::LearnedPolicy greedy(model, "greedy"), sampled(model, "sampled", true);
  auto random_model = std::make_shared<const inference::LearnedModel>(
      testing::random_weights(5, "reference", norm, 2.0), "random");
  inference::LearnedPolicy random_greedy(random_model, "rg"),
      random_sampled(random_model, "rs", true);
  Rng draw(42), rng(7);
  ClusterState cluster(est.topology());
  long checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    // Random occupancy: each server taken by one of a few jobs.
    ClusterState c(est.topology());
    for (int s = 0; s < c.num_servers(); ++s)
      if (draw.uniform() < draw.uniform()) c.occupy(static_cast<JobId>(draw.below(5)), {s});
    std::vector<bool> mask = action_mask(c, 16);
    if (trial % 3 == 0)  // arbitrary masks too (0 always allowed)
      for (int a = 1; a < 17; ++a) mask[a] = draw.uniform() < 0.3;
    const JobGraph& g = *graphs[trial % graphs.size()];
    DecisionContext ctx{g, 0.1 + 0.9 * draw.uniform(), c, mask, est, nullptr, rng};
    for (Policy* p :
         std::initializer_list<Policy*>{&greedy, &sampled, &random_greedy, &random_sampled}) {
      const int a = p->choose(ctx);
      ASSERT_TRUE(a >= 0 && a < 17 && mask[a]) << p->name() << " chose " << a;
      // Only feasible actions: a non-zero choice is always accepted.
      if (a != 0) {
        ASSERT_TRUE(est.estimate(g, a, ctx.beta, c, nullptr).accepted()) << a;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1600);
  // With every action allowed, the biased policy takes 16 wherever 16 is
  // feasible, and something else where it is not (the policy chooses among
  // feasible actions only). Which graphs allow 16 depends on whether the
  // PipeDream profiles or the built-in stand-ins are in use.
  const std::vector<bool> all(17, true);
  long took16 = 0;
  for (const auto& graph : graphs) {
    DecisionContext ctx{*graph, 0.5, cluster, all, est, nullptr, rng};
    const bool feasible = est.estimate(*graph, 16, 0.5, cluster, nullptr).accepted();
    const int chosen = greedy.choose(ctx);
    EXPECT_EQ(chosen == 16, feasible) << graph->name() << " chose " << chosen;
    took16 += chosen == 16;
  }
  if (took16 == 0) std::cout << "  (no graph here allows action 16 at beta 0.5)\n";
  // Masked logits are the mask value; greedy_action and masked_softmax agree.
  std::vector<bool> only0(17, false);
  only0[0] = true;
  DecisionContext ctx0{*graphs[0], 0.5, cluster, only0, est, nullptr, rng};
  const inference::Decision d = greedy.decide(ctx0);
  EXPECT_EQ(d.action, 0);
  for (int a = 1; a < 17; ++a) EXPECT_EQ(d.logits[a], -1e9f);
  const auto p = inference::masked_softmax(d.logits.data(), only0);
  EXPECT_EQ(p[0], 1.0);
}

TEST(LearnedPolicy, CachesPerGraphAndIsDeterministic) {
  const auto graphs = testing::real_graphs();
  const JctEstimator est(RampTopology::parse("4x4x2"), Profile::reference());
  const auto norm = features::compute_normalisers(graphs, est);
  auto model = std::make_shared<const inference::LearnedModel>(
      testing::random_weights(9, "reference", norm), "m");
  inference::LearnedPolicy a(model, "a"), b(model, "b");
  const ClusterState cluster(est.topology());
  const auto mask = action_mask(cluster, 16);
  Rng rng(1);
  for (const auto& g : graphs) {
    DecisionContext ctx{*g, 0.3, cluster, mask, est, nullptr, rng};
    const auto d1 = a.decide(ctx), d2 = a.decide(ctx), d3 = b.decide(ctx);
    EXPECT_EQ(d1.logits, d2.logits);
    EXPECT_EQ(d1.logits, d3.logits);
    EXPECT_EQ(d1.value, d3.value);
  }
}

}  // namespace
}  // namespace pacml
