#include "core/parallel/step_ops.h"

#include <algorithm>
#include <string>

#include "core/parallel/memory_model.h"

namespace pacml {

std::vector<TimelineCollective> gradient_buckets(
    const LayerGraph& graph, const std::vector<int>& ready_after, const WorkShare& share,
    double bucket_bytes, const std::function<double(double)>& all_reduce_time) {
  std::vector<TimelineCollective> buckets;
  double pending = 0;
  for (int l = graph.num_layers() - 1; l >= 0; --l) {
    pending += graph.layers[l].parameter_bytes * share(graph.layers[l]);
    if (pending > 0 && (pending >= bucket_bytes || l == 0)) {
      buckets.push_back({ready_after[l], all_reduce_time(pending)});
      pending = 0;
    }
  }
  return buckets;
}

double optimizer_time(const ParallelJob& job, double parameters, int weighted_layers,
                      double memory_bandwidth, double host_per_op) {
  // Read weights, gradients and state; write weights and state.
  const ParameterBytes per = parameter_bytes(job);
  const double bytes = parameters * (2 * per.weights + per.gradients + 2 * per.optimizer_state);
  return std::max(bytes / memory_bandwidth, host_per_op * weighted_layers);
}

int weighted_layers(const LayerGraph& graph) {
  int count = 0;
  for (const Layer& layer : graph.layers) count += layer.parameter_bytes > 0;
  return count;
}

// ---- plans --------------------------------------------------------------------

int ceil_div(long a, long b) {
  return static_cast<int>((a + b - 1) / b);
}

ParallelPlan base_plan(int gpus, Strategy strategy, const ClusterSpec& cluster) {
  ParallelPlan plan;
  plan.gpus = gpus;
  plan.strategy = strategy;
  const GpuGroup group = pack_gpus(gpus, cluster.gpus_per_server);
  plan.servers = group.servers;
  plan.gpus_per_server = group.per_server;
  return plan;
}

ParallelPlan batch_split_plan(const ParallelJob& job, int gpus, Strategy strategy,
                              const ClusterSpec& cluster) {
  ParallelPlan plan = base_plan(gpus, strategy, cluster);
  plan.dp = gpus;
  if (gpus > job.global_batch())
    return refuse(plan, PlanStatus::kNoPlacement,
                  "a batch of " + std::to_string(job.global_batch()) + " cannot be split over " +
                      std::to_string(gpus) + " GPUs");
  plan.per_gpu_batch = ceil_div(job.global_batch(), gpus);
  return plan;
}

ParallelPlan one_gpu_plan(const ParallelJob& job, Strategy strategy,
                          const StrategyContext& context) {
  ParallelPlan plan = plan_data(job, 1, context);
  plan.strategy = strategy;
  return plan;
}

ParallelPlan refuse(ParallelPlan plan, PlanStatus status, std::string why) {
  plan.status = status;
  plan.why = std::move(why);
  return plan;
}

void take_timing(ParallelPlan& plan, const TimelineResult& timeline, double optimizer) {
  plan.step_time = timeline.end + optimizer;
  plan.comp = timeline.compute + optimizer;
  plan.comm = timeline.comm;
  plan.overlap = timeline.overlap;
}

}  // namespace pacml
