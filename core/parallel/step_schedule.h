// The ops of one rank's training step in issue order (doc/PHYSICAL.md §3,
// §5): forward, then backward in reverse, with activation checkpointing's
// recomputation and the units fsdp gathers and checkpointing recomputes.
#pragma once

#include <functional>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/parallel/step_timeline.h"

namespace pacml {

// The fraction of a layer's work one rank does (1 = all; tensor parallelism
// gives 1/t to the layers it splits).
using WorkShare = std::function<double(const Layer&)>;
double whole_layer(const Layer& layer);

// Contiguous runs of layers that act as one module: a block (a numbered
// module, "h.3", "encoder.layer.7", "layer2": what Hugging Face checkpoints
// and FSDP's auto-wrap policies wrap) or a run of the root module's own
// layers between blocks (embeddings, the head). Named by the module path up
// to its first component ending in a digit; layers whose path has none
// belong to the root.
struct LayerUnits {
  std::vector<int> first;   // each unit's first layer, then the layer count
  std::vector<bool> block;  // per unit: a block (recomputed under checkpointing)
  std::vector<int> of_layer;

  int count() const { return static_cast<int>(block.size()); }
};
LayerUnits layer_units(const LayerGraph& graph);

// Ops a strategy inserts after a layer's forward op (also when it is
// recomputed) and after its backward op: tensor parallelism's blocking
// all-reduces. Empty: none.
struct StepHooks {
  std::function<void(const Layer&, std::vector<TimelineOp>&)> after_forward, after_backward;
};

struct StepOps {
  std::vector<TimelineOp> ops;
  // Per layer: the op after which its gradient exists (its backward op, or
  // the op issued before it when it has none).
  std::vector<int> gradient_ready;
  // Per unit: its first op of the forward pass and of the backward pass
  // (recomputation included); -1 where it issues none.
  std::vector<int> unit_forward, unit_backward;
  int forward_end = -1;  // the forward pass's last op
};

// Forward ops in order, then per unit in reverse order its recomputed
// forward (blocks, when `recompute`) and its backward ops in reverse. Layers
// with no work (inputs) issue nothing.
StepOps step_ops(const LayerGraph& graph, const LayerUnits& units, double host_per_op,
                 const WorkShare& share, bool recompute, const StepHooks& hooks = {});

// FSDP's collectives (FULL_SHARD), one unit at a time: its parameters
// all-gathered before its forward, the next unit's prefetched while the
// current one computes (at most two gathered), gathered again before its
// backward (prefetched during the later unit's backward), and its gradients
// reduce-scattered once they all exist. `unit_bytes[u]`: what unit u
// gathers (0: no parameters, nothing moves). Marks the ops that wait.
std::vector<TimelineCollective> fsdp_collectives(StepOps& step, const LayerUnits& units,
                                                 const std::vector<double>& unit_bytes,
                                                 const std::function<double(double)>& all_gather,
                                                 const std::function<double(double)>& scatter);

}  // namespace pacml
