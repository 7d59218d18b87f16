// The training-step graph of a job (doc/MODEL.md §1.2): every layer's forward op,
// its mirrored backward op, the backward edges, and the join edge.
#pragma once

#include <vector>

#include "core/graph/layer_graph.h"

namespace pacml {

enum class DepKind { kForward, kBackward, kJoin };

// An op of the step graph. Ops 0..n-1 are the forward ops in node order;
// op n+i is the backward op of layer i (PipeDream numbering b(i) = 2n-i+1 is
// only a name; node order is what matters).
struct StepOp {
  int layer = 0;          // index into LayerGraph::layers
  bool backward = false;  // forward or backward op of that layer
  double compute = 0;     // profile time units (ms)
  double memory = 0;      // bytes: A + P of the layer, for both directions
};

struct StepDep {
  int src = 0;  // StepOp index
  int dst = 0;
  DepKind kind = DepKind::kForward;
  int layer_edge = -1;  // the LayerEdge it mirrors; -1 for the join edge
  // The layer whose activation the edge carries in the physical profile:
  // forward u->v and backward b(v)->b(u) carry A_u; the join carries A_n.
  int carried_layer = 0;
};

class StepGraph {
 public:
  explicit StepGraph(const LayerGraph& layers);

  const LayerGraph& layers() const { return *layers_; }
  int num_layers() const { return n_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_deps() const { return static_cast<int>(deps_.size()); }
  const std::vector<StepOp>& ops() const { return ops_; }
  const std::vector<StepDep>& deps() const { return deps_; }
  int forward_op(int layer) const { return layer; }
  int backward_op(int layer) const { return n_ + layer; }

  // Compute of one step on one worker: Σ compute over all 2n ops, in op order.
  double step_compute() const;
  // JCT_seq = N × step_compute() (doc/MODEL.md §1.2).
  double sequential_jct(int steps) const { return step_compute() * steps; }
  double total_op_memory() const;
  // Σ edge sizes with the physical rule (each edge carries its activation).
  double total_activation_traffic() const;

 private:
  const LayerGraph* layers_;  // not owned; must outlive the StepGraph
  int n_;
  std::vector<StepOp> ops_;
  std::vector<StepDep> deps_;
};

}  // namespace pacml
