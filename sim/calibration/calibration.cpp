#include "sim/calibration/calibration.h"

#include <map>
#include <memory>

#include "core/parallel/physical_estimator.h"

namespace pacml::sim {
namespace {

ZooOptions options_of(const ZooStandIn& zoo, int batch) {
  ZooOptions options = zoo.options();
  options.batch = batch;
  return options;
}

std::vector<std::string> estimate_args(const ScalingPoint& p) {
  std::vector<std::string> args = {"--model", p.zoo.zoo_model, "--batch", std::to_string(p.batch)};
  if (p.zoo.seq_len) args.insert(args.end(), {"--seq-len", std::to_string(p.zoo.seq_len)});
  if (p.zoo.precision != Precision::kFp32)
    args.insert(args.end(), {"--precision", precision_name(p.zoo.precision)});
  // The zoo's default is SDPA; the measured transformers ran eager attention.
  if (zoo_model_info(p.zoo.zoo_model).layers && p.zoo.attention != Attention::kSdpa)
    args.insert(args.end(), {"--attention", attention_name(p.zoo.attention)});
  args.insert(args.end(), {"--cluster", p.cluster, "--gpus", std::to_string(p.gpus)});
  return args;
}

// The job is costed on the cluster's GPU, as `pacml estimate --cluster` does.
double step_time(const PhysicalEstimator& estimator, const ZooStandIn& zoo, int batch, int gpus) {
  ZooOptions options = options_of(zoo, batch);
  options.device = estimator.cluster().device;
  const ParallelJobPtr job = ParallelJob::from_zoo(zoo.zoo_model, options);
  return estimator.plan(*job, gpus, Strategy::kAuto).step_time;
}

}  // namespace

CalibrationRow calibrate_point(const ScalingPoint& point, const PhysicalConstants& constants) {
  const PhysicalEstimator estimator(load_cluster(point.cluster), constants);
  CalibrationRow row;
  row.point = point;
  row.args = estimate_args(point);
  row.predicted_step_time = step_time(estimator, point.zoo, point.batch, point.gpus);
  const double single =
      step_time(estimator, point.zoo, point.weak() ? point.per_gpu_batch : point.batch, 1);
  row.predicted_speedup = point.weak() ? point.gpus * single / row.predicted_step_time
                                       : single / row.predicted_step_time;
  if (!point.weak() && point.gpus == 1) {
    row.check = "step_time";
    row.tolerance = 0.35;
    row.error = row.predicted_step_time / point.measured_step_time - 1;
  } else {
    row.check = "speedup";
    row.tolerance = point.weak() ? 0.10 : point.gpus <= 8 ? 0.20 : 0.30;
    row.error = row.predicted_speedup / point.measured_speedup - 1;
  }
  row.within = std::abs(row.error) <= row.tolerance + 1e-12;
  return row;
}

std::vector<CalibrationRow> calibrate(const std::vector<ScalingPoint>& points,
                                      const PhysicalConstants& constants) {
  std::vector<CalibrationRow> rows;
  rows.reserve(points.size());
  for (const ScalingPoint& p : points) rows.push_back(calibrate_point(p, constants));
  return rows;
}

std::vector<CalibrationScore> score(const std::vector<CalibrationRow>& rows) {
  CalibrationScore speedup{"elasticflow speed-up (2-64 GPUs)", 0, 0, 0.9};
  CalibrationScore single{"elasticflow one-GPU step time", 0, 0, 1.0};
  CalibrationScore weak{"published weak scaling", 0, 0, 1.0};
  for (const CalibrationRow& r : rows) {
    CalibrationScore& s = r.point.weak() ? weak : r.check == "step_time" ? single : speedup;
    ++s.points;
    s.within += r.within;
  }
  return {speedup, single, weak};
}

}  // namespace pacml::sim
