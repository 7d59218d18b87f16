// How long a job of `iterations` training steps runs on k GPUs of a cluster
// (doc/PHYSICAL.md): the physical estimator's step time for the fastest
// strategy that fits, or a measured table's, × iterations. Step times are
// cached per job kind (model, batch, …) and k, because a replay or a Slurm
// controller asks the same question for thousands of jobs of a few kinds.
// The cache is bounded in bytes (LRU) and keyed by the job's full content
// key, so a controller that sees many users' graphs neither grows without
// bound nor lets one graph answer for another.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel/physical_estimator.h"
#include "core/util/lru_cache.h"

namespace pacml {

class DurationModel {
 public:
  static constexpr std::size_t kDefaultCacheBytes = 64u << 20;
  explicit DurationModel(std::shared_ptr<const PhysicalEstimator> estimator,
                         std::size_t cache_bytes = kDefaultCacheBytes);
  // Not copyable: it remembers an entry of its own cache.
  DurationModel(const DurationModel&) = delete;
  DurationModel& operator=(const DurationModel&) = delete;

  // Seconds per step on k GPUs (infinite if the job cannot run that way).
  double step_time(const ParallelJob& job, int gpus);
  // Seconds `iterations` steps take on k GPUs.
  double seconds(const ParallelJob& job, long iterations, int gpus) {
    return static_cast<double>(iterations) * step_time(job, gpus);
  }
  // What the plan for k GPUs says besides its time (memory, strategy); a
  // default PlanTraits where the job cannot run that way.
  PlanTraits traits(const ParallelJob& job, int gpus);
  // The shortest run on an empty cluster, over every GPU count.
  double fastest(const ParallelJob& job, long iterations);

  int cluster_gpus() const { return estimator_->cluster().num_gpus(); }
  const ClusterSpec& cluster() const { return estimator_->cluster(); }
  const PhysicalEstimator& estimator() const { return *estimator_; }
  std::size_t cached_kinds() const { return entries_.size(); }
  std::size_t cached_bytes() const { return entries_.bytes(); }

 private:
  struct Entry {
    std::vector<double> steps;       // by k; NaN = not yet planned
    std::vector<PlanTraits> traits;  // by k, with steps
    double fastest_step = NAN;
  };
  Entry& entry(const ParallelJob& job);
  // A new entry, nothing planned, and the bytes it counts.
  Entry fresh_entry() const;
  std::size_t entry_bytes() const;
  std::shared_ptr<const PhysicalEstimator> estimator_;
  LruCache<Entry> entries_;
  // The entry found last, the cache's most recently used (finding it again
  // would not reorder the cache), valid until the next insert: one decision
  // asks about one job dozens of times, and each lookup hashes the job's key
  // (a profiled graph's spells out every layer). Recognised by the job's
  // serial, which no other ParallelJob ever has.
  Entry* last_ = nullptr;
  std::uint64_t last_serial_ = 0;
  Entry spare_;  // for a job whose key alone exceeds the cache
  std::string spare_key_;
};

}  // namespace pacml
