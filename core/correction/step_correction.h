// A site's correction of predicted step times (doc/PHYSICAL.md §11): per
// model and GPU type, a factor on the step's compute and one on its exposed
// communication, fitted by `pacml calibrate --history` from the site's own
// accounting (sim/history/correction_fit.h) and read from a correction file
// (correction_file.h). The simulator applies it to its predictions; the Slurm
// plugin will call corrected_step_time and corrected_time_limit_minutes.
//
//   corrected = step × (compute × s + comm × (1 − s))
//
// where s is the plan's compute share: the part of the step not spent in
// communication that compute does not hide (compute_share below).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/parallel/parallel_plan.h"

namespace pacml {

// The factors of one (model, GPU type); 1 = the model was right.
struct CorrectionFactor {
  double compute = 1;
  double comm = 1;
  long jobs = 0;  // completed jobs it was fitted from (0: hand-written)
};

// Matches any model or any GPU type in a correction entry.
inline constexpr const char* kAnyName = "*";

struct StepCorrection {
  std::string version;  // named in logs and reports ("" = none)
  std::string source;   // the file it was read from
  // (model, device) → factors; either may be kAnyName.
  std::map<std::pair<std::string, std::string>, CorrectionFactor> factors;

  bool empty() const { return factors.empty(); }
  // The most specific entry for (model, device): both named, then the model
  // on any GPU, then any model on that GPU, then any model on any GPU; null
  // when none applies (the prediction stands).
  const CorrectionFactor* find(const std::string& model, const std::string& device) const;
};

// The share of a plan's step that is compute: 1 − the communication compute
// does not hide (comm − overlap) / step, in [0, 1]; 1 for a plan without a
// positive step time (a measured table's plan has no split: all compute).
double compute_share(const ParallelPlan& plan);

// step × (compute × share + comm × (1 − share)).
double corrected_step_time(const CorrectionFactor& factor, double step_time, double share);

// The plan's step time corrected for (model, device); the plan's own where
// no entry applies.
double corrected_step_time(const StepCorrection& correction, const std::string& model,
                           const std::string& device, const ParallelPlan& plan);

// The time limit, in minutes, for a corrected run time: ⌈(seconds × factor +
// extra) / 60⌉, at least one minute, and never below the limit the user gave
// (`user_minutes`, 0 = none): a correction that says the job is faster must
// not make Slurm end it before the user's own --time. A run time that is not
// finite gives the user's limit (0: none).
std::uint32_t corrected_time_limit_minutes(double corrected_seconds, double factor,
                                           double extra_seconds, std::uint32_t user_minutes);

}  // namespace pacml
