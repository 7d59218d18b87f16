// A search teacher with hindsight, for either admission (doc/RESULTS.md
// §2.2): how many deadlines could a
// policy meet on a trace if, at each job, it knew the jobs to come? Not a
// policy (it reads the future); a measure of what is in reach beyond the
// rules, next to the upper bound of met_bound.h.
//
// Rollout search (one step of policy iteration): at each arrival in turn,
// every action the learned GPU policy could take (turn the job away, or one
// of its candidate counts: decision_features) is tried by
// going on from the trace so far, replayed with the choices already made,
// with that action and then `base` for the next `lookahead` arrivals; the
// action whose rollout meets the most deadlines among the job and those
// arrivals is kept (ties: the base's own action, else the earliest
// candidate). With the base's action among those tried, it never does worse
// than the base over the lookahead. The replay of the choices made is kept
// (a ReplayCursor, stepped as choices are made) and forked for each
// rollout, so a decision costs its rollouts, not a replay of the trace so
// far: linear in the trace's length (a 13,000-job trace: seconds).
//
// With a queue, a job is decided whenever it is tried (at its arrival, and
// while it waits, at each completion), so the search goes decision by
// decision instead: the d-th decision of a replay is the same decision
// whenever the d before it were made alike (replays are deterministic). Each
// rollout forks the replay of the choices made, kept at an event before the
// decision's, and goes on over the arrivals up to `lookahead` after the
// decision's time (the queue drained after the last), counting every
// deadline met in it. A queue decides a job many times, so this costs
// several times the immediate search on the same trace.
#pragma once

#include <vector>

#include "core/gpu/policy.h"
#include "core/parallel/duration_model.h"
#include "sim/gpu/replay.h"

namespace pacml::gpu {

struct HindsightSearchOptions {
  Policy base;           // followed after the action tried
  long lookahead = 200;  // arrivals followed by the base
  std::uint64_t seed = 1;
  int progress = -1;  // -1 auto (a terminal), 0 off, 1 on
  Admission admission = Admission::kImmediate;
  QueueOrder order = QueueOrder::kEarliestDeadline;  // with a queue
};

// The searched choices replayed once more, with the options' admission, as
// one replay result (stats.policy "hindsight(BASE, N)").
ReplayResult hindsight_search(const std::vector<Job>& jobs, DurationModel& durations,
                              const HindsightSearchOptions& options);

// The search's best action at every decision of a replay that takes
// `follow`'s decisions instead of the search's own (null: its own), in the
// order they are made: DAgger's labels for the learned policy's rollouts
// when it learns from the search (model/gpu/trainer.h, `teacher: rollout`).
// A replay of the same jobs with the same options and a policy deciding as
// `follow` does (or as the labels say) makes these decisions in this order.
std::vector<int> hindsight_labels(const std::vector<Job>& jobs, DurationModel& durations,
                                  const HindsightSearchOptions& options, const Policy* follow);

}  // namespace pacml::gpu
