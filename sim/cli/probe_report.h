// What `pacml device fit` and `pacml calibrate --probe` show of a fit: per
// probe configuration, the measured step time and peak memory against the
// model's before and after the fit, the scores against the goal's
// tolerances, and (with --out) probe.csv, probe.json and probe.png.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "sim/calibration/device_fit.h"

namespace pacml::cli {

// One-GPU step time within ±20 % once fitted on the same GPU, ±35 % with a
// datasheet device file (doc/PHYSICAL.md §10).
constexpr double kFittedTimeTolerance = 0.20;
constexpr double kDatasheetTimeTolerance = 0.35;

// The device a fit starts from: --device NAME|FILE, else the built-in the
// probe's `# device:` line names; throws InputError("--device") otherwise.
DeviceModel probe_starting_device(const std::optional<std::string>& device,
                                  const sim::ProbeRun& run);

// A `# key: value` line of the probe's header, or "?".
std::string probe_header(const sim::ProbeRun& run, const std::string& key);

// What both commands print: the report (JSON when `json`), and the report
// files into `dir` unless it is empty.
void emit_probe_report(const sim::ProbeRun& run, const sim::DeviceFit& fit, const std::string& dir,
                       bool json);

// The table of configurations, then what the fit changed and the scores.
void print_probe_report(std::ostream& out, const sim::ProbeRun& run, const sim::DeviceFit& fit);

nlohmann::json probe_report_json(const sim::ProbeRun& run, const sim::DeviceFit& fit);

// probe.csv, probe.json and probe.png (measured against predicted step time,
// before and after, log-log) into `dir`. Returns a line for people about the plot.
std::string write_probe_report(const std::string& dir, const sim::ProbeRun& run,
                               const sim::DeviceFit& fit);

}  // namespace pacml::cli
