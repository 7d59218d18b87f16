#include "core/parallel/duration_model.h"

#include <algorithm>

namespace pacml {

DurationModel::DurationModel(std::shared_ptr<const PhysicalEstimator> estimator)
    : estimator_(std::move(estimator)) {}

DurationModel::Entry& DurationModel::entry(const ParallelJob& job) {
  for (auto& [key, e] : entries_)
    if (key == job.key()) return e;
  entries_.emplace_back(job.key(), Entry{std::vector<double>(cluster_gpus() + 1, NAN), NAN});
  return entries_.back().second;
}

double DurationModel::step_time(const ParallelJob& job, int gpus) {
  if (gpus < 1 || gpus > cluster_gpus()) return INFINITY;
  Entry& e = entry(job);
  if (std::isnan(e.steps[gpus])) {
    const ParallelPlan plan = estimator_->plan(job, gpus, Strategy::kAuto);
    e.steps[gpus] = plan.ok() ? plan.step_time : INFINITY;
  }
  return e.steps[gpus];
}

double DurationModel::fastest(const ParallelJob& job, long iterations) {
  Entry& e = entry(job);
  if (std::isnan(e.fastest_step)) {
    double best = INFINITY;
    for (int k = 1; k <= cluster_gpus(); ++k) best = std::min(best, step_time(job, k));
    e.fastest_step = best;
  }
  return static_cast<double>(iterations) * e.fastest_step;
}

}  // namespace pacml
