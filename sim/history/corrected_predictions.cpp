#include "sim/history/corrected_predictions.h"

#include <algorithm>
#include <cmath>

namespace pacml::sim {

CorrectedPredictions::CorrectedPredictions(DurationModel& durations) : durations_(durations) {}

double CorrectedPredictions::share(const gpu::Job& job, int gpus) {
  const auto key = std::make_pair(job.work->key(), gpus);
  const auto it = shares_.find(key);
  if (it != shares_.end()) return it->second;
  const ParallelPlan plan = durations_.estimator().plan(*job.work, gpus, Strategy::kAuto);
  const double s = plan.ok() ? compute_share(plan) : 1.0;
  shares_.emplace(key, s);
  return s;
}

double CorrectedPredictions::seconds(const gpu::Job& job, int gpus,
                                     const StepCorrection& correction) {
  const double step = step_time(job, gpus);
  const CorrectionFactor* f = correction.find(job.work->name(), device());
  if (!f || !std::isfinite(step)) return static_cast<double>(job.iterations) * step;
  return static_cast<double>(job.iterations) * corrected_step_time(*f, step, share(job, gpus));
}

void rescale_deadlines(std::vector<gpu::Job>& jobs, CorrectedPredictions& predictions,
                       const StepCorrection& correction, int cluster_gpus) {
  for (gpu::Job& job : jobs) {
    const int k = std::clamp(job.requested, 1, cluster_gpus);
    const double model = static_cast<double>(job.iterations) * predictions.step_time(job, k);
    const double ratio = predictions.seconds(job, k, correction) / model;
    if (std::isfinite(ratio) && ratio > 0 && std::isfinite(job.deadline))
      job.deadline = job.submit + (job.deadline - job.submit) * ratio;
  }
}

gpu::RunSeconds corrected_world(CorrectedPredictions& predictions,
                                const StepCorrection& correction) {
  return [&predictions, &correction](const gpu::Job& job, int gpus) {
    return predictions.seconds(job, gpus, correction);
  };
}

}  // namespace pacml::sim
