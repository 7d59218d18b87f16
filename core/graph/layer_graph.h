// The forward computation graph of a model: its layers and their data flow.
//
// This is what a profile (PipeDream graph.txt, pacml's native YAML, or the
// model zoo) describes. The training-step graph (step_graph.h) is derived from
// it. Layers are kept in "node order" — the order in which the source defines
// them — because placement and tie-breaking in doc/MODEL.md depend on that order.
#pragma once

#include <string>
#include <vector>

namespace pacml {

// One profiled layer = one forward op of the training step (doc/MODEL.md §1.1).
struct Layer {
  std::string name;         // identifier in the source ("node11", "conv1")
  std::string label;        // human description ("Conv2d(64, 64, ...)"); may be empty
  double forward_time = 0;  // profile time units (milliseconds) per iteration
  double backward_time = 0;
  double activation_bytes = 0;
  double parameter_bytes = 0;

  // Memory an op of this layer occupies (doc/MODEL.md §1.1: A + P).
  double memory() const { return activation_bytes + parameter_bytes; }
};

// A data dependency between two layers, by index into LayerGraph::layers.
struct LayerEdge {
  int src = 0;
  int dst = 0;
};

// A validated forward graph. Construct through a reader or build the fields and
// call validate(); every consumer in core/ may assume a validated graph.
struct LayerGraph {
  std::string model_name;        // "resnet18", or the file name
  std::vector<Layer> layers;     // node order
  std::vector<LayerEdge> edges;  // source order
  // The layer whose output starts the backward pass: the join edge of the
  // training step goes from it to its own mirror. PipeDream: the largest id.
  int output_layer = -1;

  int num_layers() const { return static_cast<int>(layers.size()); }
  int num_edges() const { return static_cast<int>(edges.size()); }

  // Throws InputError(where, ...) on: no layers, negative or non-finite values,
  // edge indices out of range, self loops, duplicate edges, cycles, an
  // output_layer out of range. `where` names the source for the message.
  void validate(const std::string& where) const;
};

// Finds a cycle and returns the layer names on it ("a -> b -> a"), or "" if the
// graph is acyclic.
std::string find_cycle(const LayerGraph& graph);

}  // namespace pacml
