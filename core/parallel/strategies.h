// The step graph of each parallelism strategy, timed with step_timeline.h
// (doc/PHYSICAL.md §3, §5). One function per strategy; physical_estimator.h
// chooses among them.
#pragma once

#include "core/cluster/cluster_spec.h"
#include "core/parallel/collectives.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/physical_constants.h"

namespace pacml {

// What every strategy needs to know about where it runs.
struct StrategyContext {
  const ClusterSpec& cluster;
  const PhysicalConstants& constants;
  const CollectiveModel& collectives;
};

// Data parallelism (DDP): every GPU runs the whole model on ceil(B/k)
// samples; gradients all-reduced in buckets that overlap the backward pass.
ParallelPlan plan_data(const ParallelJob& job, int gpus, const StrategyContext& context);

// Tensor parallelism (Megatron) over all k GPUs: transformers only; on one
// GPU, the plain one-GPU plan.
ParallelPlan plan_tensor(const ParallelJob& job, int gpus, const StrategyContext& context);

// Tensor parallelism inside a server, data parallelism across.
ParallelPlan plan_hybrid(const ParallelJob& job, int gpus, const StrategyContext& context);

// Tensor parallelism inside a server, FSDP across (70B-class models).
ParallelPlan plan_fsdp_tensor(const ParallelJob& job, int gpus, const StrategyContext& context);

// FSDP FULL_SHARD (ZeRO-3): parameters, gradients and optimizer state
// sharded over the k ranks, each unit gathered forward and backward and its
// gradients reduce-scattered, overlapped as FSDP prefetches.
ParallelPlan plan_fsdp(const ParallelJob& job, int gpus, const StrategyContext& context);

// ZeRO-1: a DDP step whose optimizer state is sharded over the k ranks:
// gradients reduce-scattered, each rank updates its shard, parameters
// all-gathered.
ParallelPlan plan_zero1(const ParallelJob& job, int gpus, const StrategyContext& context);

// Pipeline parallelism (1F1B), replicated data-parallel when k allows.
ParallelPlan plan_pipeline(const ParallelJob& job, int gpus, const StrategyContext& context);

// The paper's op partitioning with physical accounting (op_strategy.cpp):
// each op split by its compute, sub-ops by samples, redistribution where
// consecutive splits differ.
ParallelPlan plan_op(const ParallelJob& job, int gpus, const StrategyContext& context);

}  // namespace pacml
