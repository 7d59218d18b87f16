// Building blocks the strategies share: the ops of a forward and backward
// pass at some per-GPU batch, gradient buckets, the optimizer step and the
// memory a rank holds (doc/PHYSICAL.md §3).
#pragma once

#include <functional>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/step_timeline.h"
#include "core/parallel/strategies.h"

namespace pacml {

// The fraction of a layer's work one rank does (1 = all; tensor parallelism
// gives 1/t to the layers it splits).
using WorkShare = std::function<double(const Layer&)>;
double whole_layer(const Layer& layer);

// Forward ops in order, then backward ops in reverse order: 2 × layers ops.
// Layers with no work (inputs) issue nothing.
std::vector<TimelineOp> pass_ops(const LayerGraph& graph, double host_per_op,
                                 const WorkShare& share);

// For each layer, the index into pass_ops' output of the op after which its
// gradient exists: its backward op, or the op issued before it when it has
// none.
std::vector<int> gradient_ready_ops(const LayerGraph& graph);

// DDP's buckets: parameter gradients in reverse layer order, `share` of each
// layer's bytes (1/t of the split layers under tensor parallelism), closed
// at `bucket_bytes`; each ready after `ready_after[l]` of its last layer l.
std::vector<TimelineCollective> gradient_buckets(
    const LayerGraph& graph, const std::vector<int>& ready_after, const WorkShare& share,
    double bucket_bytes, const std::function<double(double)>& all_reduce_time);

// The optimizer step on one rank holding `parameters` values: memory-bound
// (reads and writes the weights, gradients and optimizer state) and one
// host launch per weighted layer.
double optimizer_time(const ParallelJob& job, double parameters, int weighted_layers,
                      double memory_bandwidth, double host_per_op);

// Bytes per parameter a rank keeps: weights, gradients and optimizer state
// (SGD with momentum for CNNs, Adam otherwise; fp32 master weights when the
// job trains in half precision).
double state_bytes_per_parameter(const ParallelJob& job);

// Activation bytes saved for the backward pass, with the work shares.
double activation_bytes(const LayerGraph& graph, const WorkShare& share);

int weighted_layers(const LayerGraph& graph);

// ---- what every strategy does with its plan ----

int ceil_div(long a, long b);
// A plan for k GPUs packed on as few servers as possible.
ParallelPlan base_plan(int gpus, Strategy strategy, const ClusterSpec& cluster);
// A plan whose k ranks each take ceil(B/k) samples (dp = k), or no_placement
// when the batch has fewer than k samples.
ParallelPlan batch_split_plan(const ParallelJob& job, int gpus, Strategy strategy,
                              const ClusterSpec& cluster);
// `plan` marked as not runnable, with the reason people see.
ParallelPlan refuse(ParallelPlan plan, PlanStatus status, std::string why);
// Fills memory per GPU and marks the plan oom when a rank does not fit.
void admit_memory(ParallelPlan& plan, double bytes, const StrategyContext& context);
// Step, compute and communication times from one rank's timeline.
void take_timing(ParallelPlan& plan, const TimelineResult& timeline, double optimizer);

}  // namespace pacml
