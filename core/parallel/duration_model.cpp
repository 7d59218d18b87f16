#include "core/parallel/duration_model.h"

#include <algorithm>
#include <cmath>

namespace pacml {

DurationModel::DurationModel(std::shared_ptr<const PhysicalEstimator> estimator,
                             std::size_t cache_bytes)
    : estimator_(std::move(estimator)), entries_(cache_bytes), spare_{{}, {}, NAN, {}} {}

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
  return Entry{std::vector<double>(counts, NAN), std::vector<PlanTraits>(counts), NAN, {}};
}

std::size_t DurationModel::entry_bytes() const {
  return (static_cast<size_t>(cluster_gpus()) + 1) * (sizeof(double) + sizeof(PlanTraits)) +
         ranked_bytes();
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

const std::vector<PlanTraits>& DurationModel::plan_traits(const ParallelJob& job) {
  step_times(job);  // plans every count once
  return entry(job).traits;
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
  Entry& e = entry(job);
  if (std::isnan(e.fastest_step)) fastest(job, 1);  // plans every count once
  return e.steps;
}

namespace {

bool power_of_two(int k) {
  return k > 0 && (k & (k - 1)) == 0;
}

// The counts in 1..max_count that fastest_first ranks: powers of two and
// multiples of per_server, in count order.
std::vector<int> ranked_counts(int max_count, int per_server) {
  per_server = std::max(1, per_server);
  std::vector<int> counts;
  for (int k = 1; k <= max_count; ++k)
    if (power_of_two(k) || k % per_server == 0) counts.push_back(k);
  return counts;
}

}  // namespace

std::vector<int> rank_fastest_first(const std::vector<double>& steps, int per_server) {
  std::vector<int> counts = ranked_counts(static_cast<int>(steps.size()) - 1, per_server);
  auto step = [&](int k) {  // NaN (not planned) ranks as infinite, so the order is strict
    const double s = steps[static_cast<size_t>(k)];
    return std::isnan(s) ? INFINITY : s;
  };
  auto before = [&](int a, int b) {
    const double sa = step(a), sb = step(b);
    return sa != sb ? sa < sb : count_ranks_before(a, b);
  };
  std::sort(counts.begin(), counts.end(), before);
  return counts;
}

bool count_ranks_before(int a, int b) {
  if (power_of_two(a) != power_of_two(b)) return power_of_two(a);
  return a < b;
}

std::size_t DurationModel::ranked_bytes() const {
  // Counted when the entry is made, so that the cache's budget holds
  // whether or not the order is asked for later.
  return ranked_counts(cluster_gpus(), cluster().gpus_per_server).size() * sizeof(int);
}

const std::vector<int>& DurationModel::fastest_first(const ParallelJob& job) {
  Entry& e = entry(job);
  if (e.fastest_first.empty())
    e.fastest_first = rank_fastest_first(step_times(job), cluster().gpus_per_server);
  return e.fastest_first;
}

}  // namespace pacml
