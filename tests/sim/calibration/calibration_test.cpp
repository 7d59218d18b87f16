// The physical model meets the calibration targets of doc/PHYSICAL.md §7:
// the published weak-scaling runs always, ElasticFlow's A100 points when the
// shared data is present (the test says plainly when it is not).
#include <gtest/gtest.h>

#include "core/parallel/physical_constants.h"
#include "sim/calibration/calibration.h"
#include "sim/calibration/elasticflow_archive.h"
#include "tests/test_data.h"

namespace pacml::sim {
namespace {

void expect_targets_met(const std::vector<CalibrationRow>& rows) {
  for (const CalibrationScore& s : score(rows)) {
    if (s.points == 0) continue;
    EXPECT_TRUE(s.met()) << s.what << ": " << s.within << " of " << s.points
                         << " within tolerance, target " << 100 * s.required << "%";
  }
  for (const CalibrationRow& r : rows)
    if (!r.within)
      std::cout << "  outside tolerance: " << r.point.source << " " << r.point.model << " batch "
                << r.point.batch << " on " << r.point.gpus << " GPUs: " << r.check << " error "
                << 100 * r.error << "% (tolerance " << 100 * r.tolerance << "%)\n";
}

TEST(Calibration, PublishedWeakScalingWithinTenPercent) {
  const auto rows = calibrate(published_points(), PhysicalConstants::calibrated());
  ASSERT_EQ(rows.size(), 8u);
  expect_targets_met(rows);
}

TEST(Calibration, ElasticFlowA100PointsWithinTolerance) {
  const std::string archive =
      ::pacml::testing::shared_data_dir() + "/elasticflow/elasticflow-traces.tar.gz";
  PACML_REQUIRE_FILE(archive);
  const ElasticFlowTraces traces = find_elasticflow_traces(archive);
  const auto points = elasticflow_points(traces.records);
  // Six models, 2-3 batches each, 1-64 GPUs.
  ASSERT_GE(points.size(), 90u);
  expect_targets_met(calibrate(points, PhysicalConstants::calibrated()));
}

TEST(Calibration, EveryRowsArgsReproduceItsStepTime) {
  // The args are what `pacml estimate` needs to print the same step time;
  // the CLI test runs them, here they must at least name the point.
  for (const CalibrationRow& r : calibrate(published_points(), PhysicalConstants::calibrated())) {
    ASSERT_GE(r.args.size(), 8u);
    EXPECT_EQ(r.args[0], "--model");
    EXPECT_EQ(r.args.back(), std::to_string(r.point.gpus));
  }
}

}  // namespace
}  // namespace pacml::sim
