// Candidate server blocks for an op split s ways on a RAMP cluster (doc/MODEL.md §4).
#pragma once

#include <vector>

#include "core/cluster/ramp_topology.h"

namespace pacml {

// A block of Cb × Rb × Sb servers, or a "diagonal" of s servers
// ((i+m), (j+m), k) for m < s.
struct BlockShape {
  int groups = 1, racks = 1, servers = 1;
  bool diagonal = false;
  bool operator==(const BlockShape& o) const {
    return groups == o.groups && racks == o.racks && servers == o.servers && diagonal == o.diagonal;
  }
};

// The shapes first fit tries for s, in order, without repeats:
// for each divisor i of s: (√(s/i), √(s/i), i) if it fits, then (s/i, 1, i)
// and (s/i, i, 1) if s/i ≤ C, s/i ≤ R and i ≤ S; then the diagonal (s, s) and (s, 1, 1).
std::vector<BlockShape> candidate_shapes(int s, const RampTopology& topology);

// True if at least one candidate shape for s fits inside the topology (has
// at least one origin). On 4×4×2 this holds for s ∈ {1, 2, 3, 4, 6, 8, 16}.
bool has_block_shape(int s, const RampTopology& topology);

// Calls visit(servers) for every placement of `shape` in scan order (origin
// i slowest, then j, then k); servers are listed in sub-op order. Stops early
// when visit returns true, and then returns true.
template <class Visit>
bool for_each_block(const BlockShape& shape, int s, const RampTopology& t, std::vector<int>& buffer,
                    Visit&& visit);

}  // namespace pacml

#include "core/placement/block_shapes_inl.h"
