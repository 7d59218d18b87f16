// sim/history/history_simulation.h: the loop in the simulator. With no bias
// and no spread the correction changes nothing beyond noise; with a bias it
// learns the truth; the same seed gives the same numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/history/history_simulation.h"

namespace pacml::sim {
namespace {

HistorySimOptions small(double bias, double lo, double hi) {
  HistorySimOptions o;
  o.jobs = 1500;
  o.bias = bias, o.spread_lo = lo, o.spread_hi = hi;
  o.settled_after = 50;
  return o;
}

TEST(HistorySimulation, WithoutABiasTheCorrectionChangesNothingBeyondNoise) {
  const HistorySimResult r = simulate_history(small(1, 1, 1));
  const SimReplay &never = r.replays[0], &learns = r.replays[1], &truth = r.replays[2];
  EXPECT_EQ(never.stats.deadline_met_rate, truth.stats.deadline_met_rate);  // the same world
  EXPECT_GT(learns.refits, 0);
  EXPECT_NEAR(learns.stats.deadline_met_rate, never.stats.deadline_met_rate, 0.015);
  EXPECT_NEAR(learns.median_error, never.median_error, 0.01);
  // the fitted factors stay within noise of 1
  for (const auto& [key, f] : learns.last_correction.factors) {
    EXPECT_NEAR(f.compute, 1, 0.05) << key.first;
    EXPECT_NEAR(f.comm, 1, 0.25) << key.first;  // little exposed communication to fit it on
  }
}

TEST(HistorySimulation, FromABiasItLearnsAndTheSameSeedGivesTheSameNumbers) {
  const HistorySimResult r = simulate_history(small(1.7, 0.5, 2));
  const SimReplay &never = r.replays[0], &learns = r.replays[1], &truth = r.replays[2];
  EXPECT_GT(never.settled_median_error, 0.3);
  EXPECT_LT(learns.settled_median_error, 0.1);
  EXPECT_LT(truth.settled_median_error, 0.1);
  EXPECT_GT(learns.stats.deadline_met_rate, never.stats.deadline_met_rate);
  const HistorySimResult again = simulate_history(small(1.7, 0.5, 2));
  EXPECT_EQ(again.replays[1].median_error, learns.median_error);
  EXPECT_EQ(again.replays[1].stats.deadline_met_rate, learns.stats.deadline_met_rate);
}

}  // namespace
}  // namespace pacml::sim
