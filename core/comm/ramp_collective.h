// Transfer times on RAMP (doc/MODEL.md §5), in seconds.
#pragma once

#include "core/cluster/ramp_topology.h"

namespace pacml {

// What a collective touches: distinct communication groups, distinct rack
// indices, distinct server-in-rack indices, distinct servers, and bytes in all.
struct CollectiveSpan {
  double message_bytes = 0;
  int groups = 0;   // cgs
  int racks = 0;    // distinct r (index alone)
  int ids = 0;      // distinct s
  int servers = 0;  // distinct (c, r, s)
};

// Point-to-point: latency + 2 × I/O latency + size / channel bandwidth.
double one_to_one_time(double bytes, const RampTopology& topology);

// RAMP hierarchical all-reduce time T_coll (0 if one server).
double collective_time(const CollectiveSpan& span, const RampTopology& topology);

}  // namespace pacml
