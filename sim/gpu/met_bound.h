// An upper bound on the deadlines any policy can meet in a GPU replay
// (sim/README.md, "An upper bound on deadlines met"): a capacity relaxation
// that no placement, GPU count, turning away or queue order can beat.
//
// Time is cut into windows [s, e) (a grid of `step` seconds, windows of up
// to `max_window` seconds, chosen by dynamic programming to make the bound
// least). Each job belongs to the window of its submission. A met job runs
// k GPUs for d(k) ≤ its time to the deadline; inside its window it holds at
// least
//
//   cost(e) = min over those k of k × overlap([t, t + d(k)), [s, e))
//
// GPU-seconds, its start t as late as the admission allows (immediate: its
// submission; queue: its deadline − d(k)), and at e it holds at least
//
//   held(e) = min over those k of (k if the run is under way at e, else 0)
//
// GPUs (under way: it cannot have ended, t ≥ submission, and must have
// begun, latest t < e). The jobs met in a window fit in its C × (e − s)
// GPU-seconds and in its C GPUs at e, so they are at most the count of its
// cheapest costs that fit, and of its fewest held GPUs that fit. Ignoring
// jobs of earlier windows still running and the servers' boundaries only
// loosens the bound. Jobs no count serves even on an empty cluster
// (unservable) count as missed.
//
// A second bound is taken too, and the smaller kept: a job met on k GPUs
// holds them from its latest possible start (as above) to its submission +
// d(k) whatever its start, and wherever such a stretch begins the runs under
// way fit in C GPUs. The linear relaxation
// of that (each job a fraction of its deadline-meeting counts) is bounded by
// its Lagrangian dual, lowered by `iterations` projected subgradient steps;
// any multipliers give a valid bound.
#pragma once

#include <vector>

#include "core/parallel/duration_model.h"
#include "sim/gpu/replay.h"

namespace pacml::gpu {

struct MetBoundOptions {
  double step = 1800;             // window boundaries, seconds
  double max_window = 48 * 3600;  // longest window, seconds
  int iterations = 3000;          // subgradient steps of the under-way bound
};

struct MetBound {
  long jobs = 0, unservable = 0;
  long met_at_most = 0;  // no policy meets more deadlines than this
  double rate = 0;       // met_at_most / jobs
};

MetBound met_upper_bound(const std::vector<Job>& jobs, DurationModel& durations,
                         Admission admission, const MetBoundOptions& options = {});

}  // namespace pacml::gpu
