// Cluster description YAML: core/cluster/cluster_spec.h. A cluster that
// parses must be usable: a small job is planned on it on 1 GPU and on all of
// them, with finite, non-negative times and a speed-up no greater than k.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/physical_estimator.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_cluster(const std::string& input) {
  std::istringstream in(input);
  const pacml::ClusterSpec cluster = pacml::load_cluster_spec(in, "fuzz-cluster.yaml");
  if (cluster.num_gpus() < 1) throw std::logic_error("a cluster without GPUs parsed");
  pacml::ZooOptions options;
  options.batch = 4;
  options.image_size = 32;
  const auto job = pacml::ParallelJob::from_zoo("resnet18", options);
  const pacml::PhysicalEstimator estimator(cluster);
  const double one = estimator.single_gpu_step_time(*job);
  const int k = std::min(cluster.num_gpus(), 4);
  const pacml::ParallelPlan plan = estimator.plan(*job, k, pacml::Strategy::kAuto);
  if (!std::isfinite(one) || one <= 0 || !std::isfinite(plan.step_time) || plan.step_time < 0)
    throw std::logic_error("non-finite step time");
  if (plan.ok() && one / plan.step_time > k * (1 + 1e-9))
    throw std::logic_error("speed-up above the GPU count");
}
PACML_FUZZ_TARGET("cluster", fuzz_cluster);
