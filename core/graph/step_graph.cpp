#include "core/graph/step_graph.h"

namespace pacml {

StepGraph::StepGraph(const LayerGraph& layers) : layers_(&layers), n_(layers.num_layers()) {
  ops_.reserve(2 * n_);
  for (int i = 0; i < n_; ++i) {
    const Layer& l = layers.layers[i];
    ops_.push_back({i, false, l.forward_time, l.memory()});
  }
  for (int i = 0; i < n_; ++i) {
    const Layer& l = layers.layers[i];
    ops_.push_back({i, true, l.backward_time, l.memory()});
  }
  deps_.reserve(2 * layers.edges.size() + 1);
  for (int e = 0; e < layers.num_edges(); ++e) {
    const LayerEdge& edge = layers.edges[e];
    deps_.push_back({edge.src, edge.dst, DepKind::kForward, e, edge.src});
  }
  for (int e = 0; e < layers.num_edges(); ++e) {
    const LayerEdge& edge = layers.edges[e];
    deps_.push_back(
        {backward_op(edge.dst), backward_op(edge.src), DepKind::kBackward, e, edge.src});
  }
  const int out = layers.output_layer;
  deps_.push_back({forward_op(out), backward_op(out), DepKind::kJoin, -1, out});
}

double StepGraph::step_compute() const {
  double total = 0;
  for (const StepOp& op : ops_) total += op.compute;
  return total;
}

double StepGraph::total_op_memory() const {
  double total = 0;
  for (const StepOp& op : ops_) total += op.memory;
  return total;
}

double StepGraph::total_activation_traffic() const {
  double total = 0;
  for (const StepDep& d : deps_) total += layers_->layers[d.carried_layer].activation_bytes;
  return total;
}

}  // namespace pacml
