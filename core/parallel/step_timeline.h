// One rank's training step as a small event simulation (doc/PHYSICAL.md §5).
//
// In data, tensor and hybrid parallelism every rank runs the same step, so
// timing one rank times the job. Three resources take part:
//  * the host issues ops in order, each costing its host time;
//  * the GPU's compute stream runs an op once it is issued and the previous
//    op is done (the host runs ahead of the GPU as far as it can);
//  * the communication stream runs collectives in order, each once the
//    compute op it waits for (its last gradient) is done, overlapping compute.
// A blocking collective (tensor parallelism's activations) sits on the
// compute stream itself. A compute op may wait for a collective on the
// communication stream (fsdp's prefetched all-gathers). Compute that overlaps communication is
// slowed by PhysicalConstants::overlap_slowdown (NCCL takes SMs and memory bandwidth).
#pragma once

#include <vector>

namespace pacml {

struct TimelineOp {
  double host = 0;             // seconds the host spends issuing it
  double device = 0;           // seconds on the compute stream
  bool is_collective = false;  // a blocking collective (counts as communication)
  // An index into the step's collectives that must have finished before this
  // op starts (fsdp: a unit's compute waits for its parameters' all-gather);
  // that collective must become ready at an earlier op. -1: none.
  int waits_for = -1;
};

struct TimelineCollective {
  int after_op = 0;  // index of the compute op whose end makes it ready; -1: the step's start
  double time = 0;   // seconds on the communication stream
};

struct TimelineResult {
  double end = 0;      // when everything is done (seconds from the step start)
  double compute = 0;  // seconds the compute stream ran an op (collectives excluded)
  double comm = 0;     // seconds a collective ran (either stream)
  double overlap = 0;  // seconds both ran at once
};

// `host_start`: host time before the first op (per-step overhead).
TimelineResult run_timeline(const std::vector<TimelineOp>& ops,
                            const std::vector<TimelineCollective>& collectives, double host_start,
                            double overlap_slowdown);

}  // namespace pacml
