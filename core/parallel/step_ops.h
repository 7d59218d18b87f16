// Building blocks the strategies share: gradient buckets, the optimizer
// step, the plans' common fields (doc/PHYSICAL.md §3). The step's ops are
// step_schedule.h's, the memory memory_model.h's.
#pragma once

#include <functional>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/step_schedule.h"
#include "core/parallel/step_timeline.h"
#include "core/parallel/strategies.h"

namespace pacml {

// DDP's buckets: parameter gradients in reverse layer order, `share` of each
// layer's bytes (1/t of the split layers under tensor parallelism), closed
// at `bucket_bytes`; each ready after `ready_after[l]` of its last layer l.
std::vector<TimelineCollective> gradient_buckets(
    const LayerGraph& graph, const std::vector<int>& ready_after, const WorkShare& share,
    double bucket_bytes, const std::function<double(double)>& all_reduce_time);

// The optimizer step on one rank updating `parameters` values: memory-bound
// (reads the weights, gradients and optimizer state, writes the weights and
// the state: memory_model.h's bytes) and one host launch per weighted layer.
double optimizer_time(const ParallelJob& job, double parameters, int weighted_layers,
                      double memory_bandwidth, double host_per_op);

int weighted_layers(const LayerGraph& graph);

// ---- what every strategy does with its plan ----

int ceil_div(long a, long b);
// A plan for k GPUs packed on as few servers as possible.
ParallelPlan base_plan(int gpus, Strategy strategy, const ClusterSpec& cluster);
// The plain one-GPU plan (data parallelism of degree 1) under `strategy`'s
// name: what tensor, fsdp and zero1 of degree 1 are.
ParallelPlan one_gpu_plan(const ParallelJob& job, Strategy strategy,
                          const StrategyContext& context);
// A plan whose k ranks each take ceil(B/k) samples (dp = k), or no_placement
// when the batch has fewer than k samples.
ParallelPlan batch_split_plan(const ParallelJob& job, int gpus, Strategy strategy,
                              const ClusterSpec& cluster);
// `plan` marked as not runnable, with the reason people see.
ParallelPlan refuse(ParallelPlan plan, PlanStatus status, std::string why);
// Step, compute and communication times from one rank's timeline.
void take_timing(ParallelPlan& plan, const TimelineResult& timeline, double optimizer);

}  // namespace pacml
