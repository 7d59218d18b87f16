// Predicted run times with a site correction applied (core/correction/
// step_correction.h), for the GPU replay's `predicted` world
// (sim/gpu/replay.h): the experiment files' `correction:` and the
// history simulation (history_simulation.h) ask it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/correction/step_correction.h"
#include "core/parallel/duration_model.h"
#include "sim/gpu/replay.h"

namespace pacml::sim {

class CorrectedPredictions {
 public:
  explicit CorrectedPredictions(DurationModel& durations);

  // The model's seconds per step on k GPUs, and its compute share (cached
  // per job kind and k: the replay asks about a few kinds thousands of times).
  double step_time(const gpu::Job& job, int gpus) { return durations_.step_time(*job.work, gpus); }
  double share(const gpu::Job& job, int gpus);
  // The GPU type corrections are keyed by: the cluster device's name.
  const std::string& device() const { return durations_.cluster().device.name; }

  // iterations × the step time corrected by `correction` (for the job's
  // model on this device; the model's own where no entry applies).
  double seconds(const gpu::Job& job, int gpus, const StepCorrection& correction);

 private:
  DurationModel& durations_;
  std::map<std::pair<std::string, int>, double> shares_;
};

// Deadlines drawn from the model's run time (slack × the run on the
// requested GPUs) made from the corrected one instead: the allowance × the
// corrected / model ratio there.
void rescale_deadlines(std::vector<gpu::Job>& jobs, CorrectedPredictions& predictions,
                       const StepCorrection& correction, int cluster_gpus);

// A replay world that predicts with `correction` (which must outlive it).
gpu::RunSeconds corrected_world(CorrectedPredictions& predictions,
                                const StepCorrection& correction);

}  // namespace pacml::sim
