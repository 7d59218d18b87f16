// One-step lookahead (doc/MODEL.md §6): simulate one training step of a placed,
// partitioned job alone on its servers and return how long it takes.
#pragma once

#include <vector>

#include "core/partition/partitioned_graph.h"
#include "core/placement/first_fit.h"

namespace pacml {

struct StepTiming {
  double step_time = 0;  // T_step, in the lookahead's time unit
  // Time in the step during which only flows, only ops, or both were active.
  double comm_only = 0;
  double comp_only = 0;
  double overlap = 0;
  long ticks = 0;  // scheduler ticks simulated (for benchmarks)
};

// dep_times: seconds per sub-dependency (dependency_times()). compute_scale
// converts sub-op compute (profile units) into the unit the communication
// seconds are added to (Profile::compute_scale).
//
// Semantics, as the reference simulator: each server runs its highest-priority
// ready op, pre-emptively; op priority per server is the rank by initial
// compute (smallest first, ties to the later-placed op); every ready flow
// advances each tick; a tick lasts until the first op finishes or the first
// channel's highest-priority flow finishes; zero-time work completes at once.
// An op is ready when the number of its completed in-dependencies (sync edges
// included — the reference's quirk) reaches its number of non-sync parents.
StepTiming simulate_step(const PartitionedGraph& graph, const Placement& placement,
                         const std::vector<double>& dep_times, double compute_scale);

}  // namespace pacml
