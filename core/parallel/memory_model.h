// What one rank's memory peaks at, term by term (doc/PHYSICAL.md §3): the
// tensors PyTorch's caching allocator counts (torch.cuda.max_memory_allocated)
// and, apart, what no tensor holds. Every strategy admits its plan here.
#pragma once

#include "core/graph/layer_graph.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/parallel_plan.h"
#include "core/parallel/step_schedule.h"
#include "core/parallel/strategies.h"

namespace pacml {

// Bytes per parameter of each resident kind. Weights and gradients are fp32
// in every precision (autocast keeps fp32 parameters, the master weights,
// and their gradients come out fp32); AdamW keeps two fp32 moments, SGD with
// momentum one (torch.optim); autocast caches a bf16/fp16 copy of each
// weight it casts, which the matrix products save for their backward.
struct ParameterBytes {
  double weights = 4, gradients = 4, optimizer_state = 0, cast_weights = 0;
};
ParameterBytes parameter_bytes(const ParallelJob& job);

// How a rank holds the model's parameters.
struct RankLayout {
  double parameters = 0;     // values of the model copy the rank computes with (P, or P/t)
  int parameter_shards = 1;  // fsdp: weights and gradients split this many ways
  int state_shards = 1;      // fsdp, zero1: the optimizer state split this many ways
  // fsdp: the values of the largest unit a rank gathers (0: not sharded).
  double largest_unit = 0;
};

// Activation bytes a rank keeps for the backward pass over layers
// [first, end): every layer's output, or under checkpointing each block's
// inputs, the root module's outputs, and one block's outputs while it is
// recomputed (the largest).
double saved_activations(const LayerGraph& graph, const LayerUnits& units, const WorkShare& share,
                         bool checkpointing, int first, int end);

// The largest transient over [first, end): the gradient of the biggest
// output, which exists next to it while that layer's backward runs.
double largest_temporary(const LayerGraph& graph, const WorkShare& share, int first, int end);

// The parameter terms of `layout` and what no tensor holds; the caller adds
// activations and the temporary.
MemoryTerms parameter_memory(const ParallelJob& job, const RankLayout& layout,
                             const StrategyContext& context);

// Every term for a rank that runs `graph` (at its per-GPU batch) whole.
MemoryTerms rank_memory(const ParallelJob& job, const LayerGraph& graph, const LayerUnits& units,
                        const WorkShare& share, const RankLayout& layout,
                        const StrategyContext& context);

// Records `memory` in the plan and marks it oom when the verdict (the peak
// plus what no tensor holds) exceeds the GPU's memory.
void admit_memory(ParallelPlan& plan, const MemoryTerms& memory, const StrategyContext& context);

}  // namespace pacml
