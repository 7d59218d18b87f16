#include "core/parallel/duration_model.h"

#include <algorithm>
#include <cmath>

namespace pacml {

DurationModel::DurationModel(std::shared_ptr<const PhysicalEstimator> estimator,
                             std::size_t cache_bytes)
    : estimator_(std::move(estimator)), entries_(cache_bytes), spare_{{}, {}, NAN} {}

// The job's entry; a job too large to cache gets a scratch entry, so it is
// still answered, only planned again next time.
DurationModel::Entry& DurationModel::entry(const ParallelJob& job) {
  if (last_ && last_serial_ == job.serial()) return *last_;
  last_ = nullptr;
  Entry* e = entries_.find(job.key(), job.serial());
  if (!e) e = entries_.insert(job.key(), fresh_entry(), entry_bytes(), job.serial());
  if (e) {
    last_ = e, last_serial_ = job.serial();
    return *e;
  }
  if (spare_key_ != job.key()) {
    spare_ = fresh_entry();
    spare_key_ = job.key();
  }
  return spare_;
}

DurationModel::Entry DurationModel::fresh_entry() const {
  const size_t counts = static_cast<size_t>(cluster_gpus()) + 1;
  return Entry{std::vector<double>(counts, NAN), std::vector<PlanTraits>(counts), NAN};
}

std::size_t DurationModel::entry_bytes() const {
  return (static_cast<size_t>(cluster_gpus()) + 1) * (sizeof(double) + sizeof(PlanTraits));
}

double DurationModel::step_time(const ParallelJob& job, int gpus) {
  if (gpus < 1 || gpus > cluster_gpus()) return INFINITY;
  Entry& e = entry(job);
  if (std::isnan(e.steps[gpus])) {
    const ParallelPlan plan = estimator_->plan(job, gpus, Strategy::kAuto);
    e.steps[gpus] = plan.ok() ? plan.step_time : INFINITY;
    if (plan.ok())
      e.traits[gpus] = {static_cast<float>(plan.memory.verdict() / cluster().gpu_memory),
                        plan.strategy};
  }
  return e.steps[gpus];
}

PlanTraits DurationModel::traits(const ParallelJob& job, int gpus) {
  if (gpus < 1 || gpus > cluster_gpus()) return {};
  step_time(job, gpus);  // plans it once
  return entry(job).traits[gpus];
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
