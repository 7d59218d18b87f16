#include "core/parallel/duration_model.h"

#include <algorithm>

namespace pacml {

DurationModel::DurationModel(std::shared_ptr<const PhysicalEstimator> estimator,
                             std::size_t cache_bytes)
    : estimator_(std::move(estimator)), entries_(cache_bytes), spare_{{}, NAN} {}

// The job's entry; a job too large to cache gets a scratch entry, so it is
// still answered, only planned again next time.
DurationModel::Entry& DurationModel::entry(const ParallelJob& job) {
  if (last_ && last_serial_ == job.serial()) return *last_;
  last_ = nullptr;
  Entry* e = entries_.find(job.key(), job.serial());
  if (!e) {
    Entry fresh{std::vector<double>(cluster_gpus() + 1, NAN), NAN};
    const std::size_t bytes = fresh.steps.size() * sizeof(double);
    e = entries_.insert(job.key(), std::move(fresh), bytes, job.serial());
  }
  if (e) {
    last_ = e, last_serial_ = job.serial();
    return *e;
  }
  if (spare_key_ != job.key()) {
    spare_ = Entry{std::vector<double>(cluster_gpus() + 1, NAN), NAN};
    spare_key_ = job.key();
  }
  return spare_;
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

const std::vector<double>& DurationModel::step_times(const ParallelJob& job) {
  fastest(job, 1);  // plans every count once
  return entry(job).steps;
}

}  // namespace pacml
