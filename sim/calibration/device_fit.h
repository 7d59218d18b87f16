// A device file fitted to what contrib/probe/pacml-probe measured on one GPU
// (doc/PHYSICAL.md §10, "The fit"): `pacml device fit` and the probe section
// of `pacml calibrate`.
//
// Each training step the probe timed is predicted the way `pacml estimate
// --gpus 1` predicts it: the zoo model at the probe's batch, sequence,
// precision, attention, checkpointing and optimizer, costed on the device,
// one GPU (PhysicalEstimator on a one-GPU cluster of that device). The fit
// then
//   1. takes what the probe measured directly: each precision's peak becomes
//      the largest matrix-product rate measured / efficiency.linear (so a
//      large linear layer runs at the measured rate; efficiency.linear itself
//      is kept), memory_bandwidth the copy rate, and the host's cost per op
//      is at least the measured cost of a bare op;
//   2. searches the free constants the steps depend on (the efficiencies of
//      the other compute-bound op kinds, the sustained bandwidth, the launch
//      overhead, the host's cost per op and per step) by coordinate descent
//      in log space, minimising the mean squared log error of step time.
// Memory is not fitted: no device constant enters the memory model; it is
// compared, before and after alike.
#pragma once

#include <string>
#include <vector>

#include "core/zoo/device_model.h"
#include "sim/calibration/probe_file.h"

namespace pacml::sim {

// One step row of a probe against the model on one GPU of a device.
struct ProbeComparison {
  const ProbeRow* row = nullptr;  // into the ProbeRun compared
  std::string configuration;      // "gpt2 batch 8 seq 1024 bf16 sdpa ckpt", for people
  double predicted_seconds = 0;
  double predicted_peak_bytes = 0;  // memory_per_gpu: what max_memory_allocated reports
  bool predicted_fits = true;       // the verdict (peak + what no tensor holds ≤ memory)

  bool measured_fits() const { return row->status == ProbeStatus::kOk; }
  bool timed() const { return row->status == ProbeStatus::kOk; }
  bool memory_measured() const { return timed() && row->peak_bytes >= 0; }
  // predicted / measured − 1 (NaN where the probe has no figure).
  double time_error() const;
  double memory_error() const;
};

// Every step row that ran (ok) or ran out of memory (oom); skipped and
// unsupported rows are left out. Throws InputError naming file:line for a
// model the zoo does not know or options it refuses.
std::vector<ProbeComparison> compare_probe(const ProbeRun& run, const DeviceModel& device);

// How many comparisons fall within the goal's tolerances (doc/PHYSICAL.md §10).
struct ProbeScore {
  int timed = 0, time_within = 0;     // |time error| ≤ time_tolerance
  int memory = 0, memory_within = 0;  // |memory error| ≤ 25 %
  int verdicts = 0, verdicts_right = 0;
  double median_abs_time_error = 0;
};
ProbeScore score_probe(const std::vector<ProbeComparison>& rows, double time_tolerance);

struct DeviceFit {
  DeviceModel before, after;
  std::vector<ProbeComparison> before_rows, after_rows;
  // What changed, for people: "efficiency.conv 0.7 -> 0.612 (fitted)".
  std::vector<std::string> changes;
  // Constants no timed step depends on, left as they were.
  std::vector<std::string> not_exercised;
  int evaluations = 0;  // predictions of the whole probe the search made
};

// Throws InputError (naming the probe file) when it has no timed step.
DeviceFit fit_device(const ProbeRun& run, const DeviceModel& start);

// The built-in device a probe's `# device:` line names ("NVIDIA H200" ->
// "h200"), or "" when none matches.
std::string builtin_device_for(const std::string& probe_device);

}  // namespace pacml::sim
