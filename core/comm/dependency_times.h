// Communication time of every dependency of a placed job (doc/MODEL.md §5).
#pragma once

#include <vector>

#include "core/cluster/ramp_topology.h"
#include "core/partition/partitioned_graph.h"
#include "core/placement/first_fit.h"

namespace pacml {

// Seconds per sub-dependency. Zero on one server or for size 0; the out-edges
// of a split forward op's sub-ops (and the non-sync in-edges of its backward
// twin's sub-ops) form one collective when their source and destination
// server multisets agree; each sync pair is a 2-edge collective; every other
// edge is one-to-one.
std::vector<double> dependency_times(const PartitionedGraph& graph, const Placement& placement,
                                     const RampTopology& topology);

}  // namespace pacml
