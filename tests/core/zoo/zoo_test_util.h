// Shared by the zoo's tests: a layer's index by module name, whether an edge
// joins two named layers, and whether two device models hold the same numbers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/graph/layer_graph.h"
#include "core/zoo/device_model.h"

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

// Every field of `got` equals `want`'s, exactly.
inline void expect_same_device(const DeviceModel& got, const DeviceModel& want) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.memory_bytes, want.memory_bytes);
  EXPECT_EQ(got.memory_bandwidth, want.memory_bandwidth);
  EXPECT_EQ(got.launch_overhead, want.launch_overhead);
  EXPECT_EQ(got.peak_flops, want.peak_flops);
  EXPECT_EQ(got.efficiency, want.efficiency);
  EXPECT_EQ(got.host.per_op, want.host.per_op);
  EXPECT_EQ(got.host.per_step, want.host.per_step);
}

}  // namespace pacml::zoo_test
