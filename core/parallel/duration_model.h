// How long a job of `iterations` training steps runs on k GPUs of a cluster
// (doc/PHYSICAL.md): the physical estimator's step time for the fastest
// strategy that fits, or a measured table's, × iterations. Step times are
// cached per job kind (model, batch, …) and k, because a replay or a Slurm
// controller asks the same question for thousands of jobs of a few kinds.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel/physical_estimator.h"

namespace pacml {

class DurationModel {
 public:
  explicit DurationModel(std::shared_ptr<const PhysicalEstimator> estimator);

  // Seconds per step on k GPUs (infinite if the job cannot run that way).
  double step_time(const ParallelJob& job, int gpus);
  // Seconds `iterations` steps take on k GPUs.
  double seconds(const ParallelJob& job, long iterations, int gpus) {
    return static_cast<double>(iterations) * step_time(job, gpus);
  }
  // The shortest run on an empty cluster, over every GPU count.
  double fastest(const ParallelJob& job, long iterations);

  int cluster_gpus() const { return estimator_->cluster().num_gpus(); }
  const ClusterSpec& cluster() const { return estimator_->cluster(); }
  const PhysicalEstimator& estimator() const { return *estimator_; }

 private:
  struct Entry {
    std::vector<double> steps;  // by k; NaN = not yet planned
    double fastest_step = NAN;
  };
  Entry& entry(const ParallelJob& job);
  std::shared_ptr<const PhysicalEstimator> estimator_;
  std::vector<std::pair<std::string, Entry>> entries_;  // few kinds: linear search
};

}  // namespace pacml
