// The loop shown in the simulator (doc/PHYSICAL.md §11, `pacml history
// simulate`): jobs replayed in a world whose true step times differ from
// pacml's predictions, three times over the same jobs and noise:
//
//   never     predicts with the model as it is;
//   learns    refits a correction (correction_fit.h) from the replay's own
//             completed jobs every `refit_every` completions, and predicts
//             with it;
//   truth     predicts with the world's true factors (not its noise).
//
// The world: per model, a compute and a communication factor, each drawn
// log-uniform in [spread_lo, spread_hi] (seeded), times a global `bias`;
// each job's step time is the model's step × (compute × s + comm × (1 − s))
// × a per-job log-normal noise exp(noise × N(0, 1)). Deadlines are the
// fitted workload's, made from the true run time on the requested GPUs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/correction/step_correction.h"
#include "sim/gpu/replay.h"
#include "sim/history/correction_fit.h"

namespace pacml::sim {

struct HistorySimOptions {
  std::string cluster = "ramp-a100-16x8";
  std::string workload = "elasticflow-01-05";  // a built-in name or a workload file
  double load = 1;
  long jobs = 5000;
  std::uint64_t seed = 0;
  std::string policy = "min_feasible";
  gpu::Admission admission = gpu::Admission::kQueue;
  double bias = 1.7;
  double spread_lo = 0.5, spread_hi = 2;
  double noise = 0.05;       // log-sd of a job's step time around its model's
  long refit_every = 50;     // completed jobs between refits
  long settled_after = 200;  // completed jobs of a model before its error counts as settled
  FitOptions fit;            // bootstrap is not used by the refits
};

// One final outcome, in the order the replay settled them.
struct SimOutcome {
  std::string model;
  bool completed = false, met = false;
  double error = NAN;  // completed: |predicted / true run time − 1|
  // Its model had settled_after completions when it started (a job never
  // started: when it left).
  bool settled = false;
};

struct SimReplay {
  std::string name;  // never, learns, truth
  gpu::ReplayStats stats;
  std::vector<SimOutcome> outcomes;
  long refits = 0;
  StepCorrection last_correction;  // learns: the last fit
  PriorWeight last_prior;          // learns: the last fit's prior weight
  double median_error = NAN, settled_median_error = NAN;
  long settled_jobs = 0;          // completed and settled
  double settled_met_rate = NAN;  // over every settled outcome
  long settled_outcomes = 0;
};

struct HistorySimResult {
  std::map<std::string, CorrectionFactor> truth;  // per model, bias included
  std::string device;
  std::vector<SimReplay> replays;  // never, learns, truth
};

// Deterministic for the options (their seed included).
HistorySimResult simulate_history(const HistorySimOptions& options);

}  // namespace pacml::sim
