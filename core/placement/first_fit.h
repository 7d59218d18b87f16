// RAMP first-fit placement of a partitioned job (doc/MODEL.md §4).
#pragma once

#include <string>
#include <vector>

#include "core/cluster/cluster_state.h"
#include "core/partition/partitioned_graph.h"

namespace pacml {

struct Placement {
  bool placed = false;
  std::string failure;         // why not, when !placed
  std::vector<int> server_of;  // per sub-op (PartitionedGraph index)
  std::vector<int> servers;    // distinct servers used, ascending
  std::vector<int> order;      // sub-ops in the order they were placed
};

// Walks the forward layers in Kahn order; each layer's sub-ops (and its
// backward twin's) go on a parent's servers when a parent is split the same
// way and has room, else on the first free block of a candidate shape.
// Servers held by other jobs in `cluster` are never used.
Placement place_first_fit(const PartitionedGraph& graph, const ClusterState& cluster);

// Kahn topological order of the forward layers: parentless layers seeded in
// node order, pop front, children released in out-edge order.
std::vector<int> kahn_order(const LayerGraph& graph);

}  // namespace pacml
