// The physical model's entry point (doc/PHYSICAL.md): how long a training job
// takes on k GPUs of a cluster, with which strategy, and whether it fits.
//
//   PhysicalEstimator estimator(load_cluster("dgx-a100-16x8"));
//   auto job = ParallelJob::from_zoo("resnet50", options);   // global batch 256
//   ParallelPlan plan = estimator.plan(*job, 8, Strategy::kAuto);
//   plan.step_time  -> seconds per step on 8 GPUs, plan.strategy -> kData
//
// `auto` tries every strategy and keeps the fastest that fits in memory. A
// throughput table, when given, answers for the (model, batch, k) it has.
// Thread-safe: const, and ParallelJob caches behind a mutex.
#pragma once

#include <memory>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/collectives.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/physical_constants.h"
#include "core/parallel/throughput_table.h"

namespace pacml {

class PhysicalEstimator {
 public:
  // `constants`' host fields are replaced by the cluster device's host cost
  // (DeviceModel::host), so constants() holds what the strategies use.
  explicit PhysicalEstimator(ClusterSpec cluster,
                             PhysicalConstants constants = PhysicalConstants::calibrated(),
                             std::shared_ptr<const ThroughputTable> table = nullptr);

  const ClusterSpec& cluster() const { return cluster_; }
  const PhysicalConstants& constants() const { return constants_; }

  // One step of `job` on `gpus` GPUs (1..cluster GPUs) of an empty cluster.
  // Throws InputError("--gpus") for k outside that range.
  ParallelPlan plan(const ParallelJob& job, int gpus, Strategy strategy) const;

  // The analytic plan, ignoring any throughput table.
  ParallelPlan analytic_plan(const ParallelJob& job, int gpus, Strategy strategy) const;

  // The step time on one GPU that speed-ups are measured against: the
  // table's or the analytic one's, even where one GPU runs out of memory.
  double single_gpu_step_time(const ParallelJob& job) const;

 private:
  ParallelPlan best_of_all(const ParallelJob& job, int gpus) const;
  ParallelPlan concrete(const ParallelJob& job, int gpus, Strategy strategy) const;

  ClusterSpec cluster_;
  PhysicalConstants constants_;
  CollectiveModel collectives_;
  std::shared_ptr<const ThroughputTable> table_;
};

}  // namespace pacml
