#include "core/graph/layer_graph.h"

#include <cmath>
#include <set>
#include <utility>

#include "core/util/error.h"

namespace pacml {
namespace {

void check_value(double value, const std::string& where, const Layer& layer, const char* field) {
  // At most 1e18 (ms or bytes): far above any real model, far enough below
  // overflow that sums over layers, steps and transfers stay finite.
  if (!std::isfinite(value) || value < 0 || value > 1e18)
    throw InputError(where, "layer '" + layer.name + "': " + field +
                                " must be a finite non-negative number (at most 1e18)");
}

}  // namespace

void LayerGraph::validate(const std::string& where) const {
  if (layers.empty()) throw InputError(where, "graph has no layers");
  std::set<std::string> names;
  for (const Layer& layer : layers) {
    if (layer.name.empty()) throw InputError(where, "a layer has an empty name");
    if (!names.insert(layer.name).second)
      throw InputError(where, "duplicate layer '" + layer.name + "'");
    check_value(layer.forward_time, where, layer, "forward time");
    check_value(layer.backward_time, where, layer, "backward time");
    check_value(layer.activation_bytes, where, layer, "activation size");
    check_value(layer.parameter_bytes, where, layer, "parameter size");
  }
  std::set<std::pair<int, int>> seen;
  for (const LayerEdge& e : edges) {
    if (e.src < 0 || e.src >= num_layers() || e.dst < 0 || e.dst >= num_layers())
      throw InputError(where, "edge refers to a layer that does not exist");
    if (e.src == e.dst) throw InputError(where, "self loop on layer '" + layers[e.src].name + "'");
    if (!seen.insert({e.src, e.dst}).second)
      throw InputError(where, "duplicate edge " + layers[e.src].name + " -> " + layers[e.dst].name);
  }
  if (output_layer < 0 || output_layer >= num_layers())
    throw InputError(where, "output layer is not set");
  std::string cycle = find_cycle(*this);
  if (!cycle.empty()) throw InputError(where, "graph has a cycle: " + cycle);
}

std::string find_cycle(const LayerGraph& graph) {
  const int n = graph.num_layers();
  std::vector<std::vector<int>> out(n);
  for (const LayerEdge& e : graph.edges)
    if (e.src >= 0 && e.src < n && e.dst >= 0 && e.dst < n) out[e.src].push_back(e.dst);
  // Iterative DFS with colours: 0 new, 1 on stack, 2 done.
  std::vector<int> colour(n, 0), parent(n, -1);
  std::vector<std::pair<int, size_t>> stack;
  for (int root = 0; root < n; ++root) {
    if (colour[root]) continue;
    stack.push_back({root, 0});
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < out[node].size()) {
        int child = out[node][next++];
        if (colour[child] == 1) {
          std::string text = graph.layers[child].name;
          std::vector<int> path;
          for (int v = node; v != child && v != -1; v = parent[v]) path.push_back(v);
          for (auto it = path.rbegin(); it != path.rend(); ++it)
            text += " -> " + graph.layers[*it].name;
          return text + " -> " + graph.layers[child].name;
        }
        if (colour[child] == 0) {
          colour[child] = 1;
          parent[child] = node;
          stack.push_back({child, 0});
        }
      } else {
        colour[node] = 2;
        stack.pop_back();
      }
    }
  }
  return "";
}

}  // namespace pacml
