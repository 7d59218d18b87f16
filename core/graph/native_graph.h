// pacml's native graph format: YAML a person can write by hand for a model
// that has no PipeDream profile (doc/MODEL.md §1.1; example contrib/graphs/example-cnn.yaml).
//
//   pacml_graph: 1            # format version
//   name: tiny-mlp
//   output: fc2               # optional; default: the last op listed
//   ops:
//     - {id: fc1, label: "Linear(784, 512)", forward_ms: 0.4, backward_ms: 0.8,
//        activation_bytes: 262144, parameter_bytes: 1606656}
//     - {id: fc2, forward_ms: 0.1, backward_ms: 0.2, activation_bytes: 5120,
//        parameter_bytes: 20520}
//   edges:
//     - [fc1, fc2]
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "core/graph/layer_graph.h"

namespace pacml {

constexpr int kNativeGraphVersion = 1;

// Parses the native format. Errors name "source:line" where yaml-cpp knows it.
LayerGraph read_native_graph(std::istream& in, const std::string& source);
LayerGraph read_native_graph_file(const std::string& path);

// Writes a graph in the native format (round-trips through read_native_graph).
void write_native_graph(const LayerGraph& graph, std::ostream& out);

// Writes a graph as a PipeDream graph.txt (node ids become node1..nodeN in
// node order, with the output layer given the largest id as PipeDream requires).
void write_pipedream_graph(const LayerGraph& graph, std::ostream& out);

}  // namespace pacml
