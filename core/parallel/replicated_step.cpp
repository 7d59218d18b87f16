#include "core/parallel/replicated_step.h"

#include <algorithm>
#include <functional>

#include "core/parallel/memory_model.h"
#include "core/parallel/step_ops.h"

namespace pacml {
namespace {

// The bytes each unit gathers: its layers' parameters at the job's
// precision, the rank's tensor share of them.
std::vector<double> unit_parameter_bytes(const LayerGraph& graph, const LayerUnits& units,
                                         const WorkShare& share) {
  std::vector<double> bytes(units.count(), 0);
  for (int l = 0; l < graph.num_layers(); ++l)
    bytes[units.of_layer[l]] += graph.layers[l].parameter_bytes * share(graph.layers[l]);
  return bytes;
}

}  // namespace

ParallelPlan plan_replicated(ParallelPlan plan, const ParallelJob& job, const RankWork& work,
                             ReplicaSync sync, const StrategyContext& context) {
  const auto graph = job.at_batch(plan.per_gpu_batch);
  const LayerUnits units = layer_units(*graph);
  const double host = context.constants.host_time_per_op(job.family());
  StepOps step = step_ops(*graph, units, host, work.share, job.checkpointing(), work.hooks);
  // The replicas' group: one GPU per tensor group on each server.
  const GpuGroup full = pack_gpus(plan.gpus, context.cluster.gpus_per_server);
  const GpuGroup replicas{plan.dp, full.servers, std::max(1, full.per_server / plan.tp)};
  using Collective = std::function<double(double)>;
  const Collective all_reduce = [&](double b) {
    return context.collectives.all_reduce(b, replicas);
  };
  const Collective all_gather = [&](double b) {
    return context.collectives.all_gather(b, replicas);
  };
  const Collective scatter = [&](double b) {
    return context.collectives.reduce_scatter(b, replicas);
  };
  const std::vector<double> unit_bytes = unit_parameter_bytes(*graph, units, work.share);
  std::vector<TimelineCollective> collectives;
  if (plan.dp > 1 && sync == ReplicaSync::kFsdp)
    collectives = fsdp_collectives(step, units, unit_bytes, all_gather, scatter);
  else if (plan.dp > 1)
    collectives =
        gradient_buckets(*graph, step.gradient_ready, work.share, context.constants.bucket_bytes,
                         sync == ReplicaSync::kZero1 ? scatter : all_reduce);
  const TimelineResult timeline = run_timeline(
      step.ops, collectives, context.constants.host_per_step, context.constants.overlap_slowdown);
  const double params = job.parameters() / work.tensor_degree;
  const int shards = sync == ReplicaSync::kAllReduce ? 1 : plan.dp;
  take_timing(plan, timeline,
              optimizer_time(job, params / shards, weighted_layers(*graph),
                             context.cluster.device.memory_bandwidth, host));
  if (sync == ReplicaSync::kZero1) {
    // Each rank updated its shard; the next forward needs them all.
    const double gather = all_gather(params * job.bytes_per_value());
    plan.step_time += gather, plan.comm += gather;
  }
  RankLayout layout;
  layout.parameters = params;
  layout.state_shards = shards;
  if (sync == ReplicaSync::kFsdp) {
    layout.parameter_shards = plan.dp;
    layout.largest_unit =
        *std::max_element(unit_bytes.begin(), unit_bytes.end()) / job.bytes_per_value();
  }
  admit_memory(plan, rank_memory(job, *graph, units, work.share, layout, context), context);
  return plan;
}

}  // namespace pacml
