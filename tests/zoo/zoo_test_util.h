// Graph look-ups shared by the zoo's tests: a layer's index by module name,
// and whether an edge joins two named layers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/graph/layer_graph.h"

namespace pacml::zoo_test {

inline int index_of(const LayerGraph& g, const std::string& name) {
  for (int i = 0; i < g.num_layers(); ++i)
    if (g.layers[i].name == name) return i;
  ADD_FAILURE() << "no layer " << name;
  return -1;
}

inline bool has_edge(const LayerGraph& g, const std::string& from, const std::string& to) {
  const int s = index_of(g, from), d = index_of(g, to);
  for (const LayerEdge& e : g.edges)
    if (e.src == s && e.dst == d) return true;
  return false;
}

}  // namespace pacml::zoo_test
