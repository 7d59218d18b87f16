// One rank's step when the job runs as dp replicas of a t-way (tensor-
// parallel) model copy, kept in step by DDP, ZeRO-1 or FSDP (doc/PHYSICAL.md
// §3): data, zero1 and fsdp are t = 1; tensor and hybrid are DDP with t > 1;
// fsdp-tensor is FSDP with t > 1.
#pragma once

#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/step_schedule.h"
#include "core/parallel/strategies.h"

namespace pacml {

enum class ReplicaSync {
  kAllReduce,  // DDP: gradients all-reduced in buckets during the backward pass
  kZero1,      // gradients reduce-scattered in buckets, the state sharded, parameters gathered
  kFsdp,       // parameters, gradients and state sharded; units gathered and scattered
};

// What one rank of a model copy does: its share of each layer's work,
// parameters and activations (1 for t = 1), and the ops a tensor split adds.
struct RankWork {
  int tensor_degree = 1;
  WorkShare share = whole_layer;
  StepHooks hooks;
};

// Times and admits `plan`, whose gpus, tp, dp and per_gpu_batch are set.
ParallelPlan plan_replicated(ParallelPlan plan, const ParallelJob& job, const RankWork& work,
                             ReplicaSync sync, const StrategyContext& context);

}  // namespace pacml
