#include "core/parallel/step_ops.h"

#include <algorithm>
#include <string>

namespace pacml {

double whole_layer(const Layer&) {
  return 1.0;
}

std::vector<TimelineOp> pass_ops(const LayerGraph& graph, double host_per_op,
                                 const WorkShare& share) {
  std::vector<TimelineOp> ops;
  ops.reserve(2 * graph.layers.size());
  for (const Layer& layer : graph.layers)
    if (layer.forward_time > 0)
      ops.push_back({host_per_op, layer.forward_time * 1e-3 * share(layer)});
  for (auto it = graph.layers.rbegin(); it != graph.layers.rend(); ++it)
    if (it->backward_time > 0) ops.push_back({host_per_op, it->backward_time * 1e-3 * share(*it)});
  return ops;
}

std::vector<int> gradient_ready_ops(const LayerGraph& graph) {
  std::vector<int> ready(graph.layers.size(), 0);
  int issued = 0;  // ops pass_ops has issued so far
  for (const Layer& layer : graph.layers) issued += layer.forward_time > 0;
  for (int l = graph.num_layers() - 1; l >= 0; --l) {
    issued += graph.layers[l].backward_time > 0;
    ready[l] = std::max(0, issued - 1);
  }
  return ready;
}

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

double state_bytes_per_parameter(const ParallelJob& job) {
  const double value = job.bytes_per_value();
  const bool half = job.precision() != Precision::kFp32;
  const double master = half ? 4 : 0;
  const double optimizer = job.family() == ModelFamily::kCnn ? 4 : 8;  // momentum | Adam m, v
  return value /*weights*/ + value /*gradients*/ + master + optimizer;
}

double optimizer_time(const ParallelJob& job, double parameters, int weighted_layers,
                      double memory_bandwidth, double host_per_op) {
  // Read weights, gradients and state; write weights and state.
  const double state = state_bytes_per_parameter(job);
  const double bytes = parameters * (2 * state - job.bytes_per_value());
  return std::max(bytes / memory_bandwidth, host_per_op * weighted_layers);
}

double activation_bytes(const LayerGraph& graph, const WorkShare& share) {
  double bytes = 0;
  for (const Layer& layer : graph.layers) bytes += layer.activation_bytes * share(layer);
  return bytes;
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

ParallelPlan refuse(ParallelPlan plan, PlanStatus status, std::string why) {
  plan.status = status;
  plan.why = std::move(why);
  return plan;
}

// Fills memory and marks the plan oom when a rank does not fit.
void admit_memory(ParallelPlan& plan, double bytes, const StrategyContext& context) {
  plan.memory_per_gpu = bytes + context.constants.reserved_memory;
  if (plan.memory_per_gpu > context.cluster.gpu_memory && plan.ok()) {
    plan.status = PlanStatus::kOom;
    plan.why = "needs " + std::to_string(static_cast<long>(plan.memory_per_gpu / 1e9)) +
               " GB per GPU, the GPU has " +
               std::to_string(static_cast<long>(context.cluster.gpu_memory / 1e9)) + " GB";
  }
}

void take_timing(ParallelPlan& plan, const TimelineResult& timeline, double optimizer) {
  plan.step_time = timeline.end + optimizer;
  plan.comp = timeline.compute + optimizer;
  plan.comm = timeline.comm;
  plan.overlap = timeline.overlap;
}

}  // namespace pacml
