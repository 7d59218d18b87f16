// The physical model against measurements (doc/PHYSICAL.md §7): predicts
// every scaling point with `pacml estimate`'s model and checks it against the
// tolerances a good model meets.
#pragma once

#include <string>
#include <vector>

#include "core/parallel/physical_constants.h"
#include "sim/calibration/scaling_points.h"

namespace pacml::sim {

struct CalibrationRow {
  ScalingPoint point;
  double predicted_speedup = 0;
  double predicted_step_time = 0;  // seconds, at point.batch on point.gpus GPUs
  // `pacml estimate` arguments whose output object with this `gpus` has
  // step_time == predicted_step_time.
  std::vector<std::string> args;
  // What is checked: "speedup" (within ±tolerance) or "step_time" (one GPU).
  std::string check;
  double tolerance = 0;  // relative
  double error = 0;      // predicted / measured − 1, of what is checked
  bool within = false;
};

// Tolerances (doc/PHYSICAL.md §7.3): strong-scaling speed-up ±20 % up to 8
// GPUs and ±30 % beyond, one-GPU step time ±35 %, weak scaling ±10 %.
CalibrationRow calibrate_point(const ScalingPoint& point, const PhysicalConstants& constants);

std::vector<CalibrationRow> calibrate(const std::vector<ScalingPoint>& points,
                                      const PhysicalConstants& constants);

// Share of rows of one kind within tolerance.
struct CalibrationScore {
  std::string
      what;  // "elasticflow speed-up", "elasticflow one-GPU step time", "published weak scaling"
  int points = 0, within = 0;
  double required = 0;  // the share a good model reaches
  bool met() const { return points == 0 || within >= required * points - 1e-9; }
};
std::vector<CalibrationScore> score(const std::vector<CalibrationRow>& rows);

}  // namespace pacml::sim
