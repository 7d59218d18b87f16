// Calibration: how a zoo graph compares with a measured PipeDream profile of
// the same model at the same batch size.
//
// Times are compared without the graphs' source layers (layers with no
// inputs): PipeDream's "Input" op times the data loader (636 ms for AlexNet),
// which is not GPU work, and the zoo's inputs cost nothing.
#pragma once

#include <string>
#include <vector>

#include "core/graph/layer_graph.h"
#include "core/zoo/device_model.h"

namespace pacml {

// Totals over one graph.
struct GraphTotals {
  int ops = 0;  // layers
  double parameter_bytes = 0;
  double activation_bytes = 0;
  double forward_ms = 0;  // source layers excluded (see above)
  double backward_ms = 0;
};

GraphTotals graph_totals(const LayerGraph& graph);

struct CalibrationRow {
  std::string model;   // profile's model name
  std::string device;  // the zoo graph's device model (filled by calibration_report)
  int batch = 0;       // batch size both graphs are at (filled by calibration_report)
  GraphTotals zoo;
  GraphTotals profile;

  // zoo / profile (0 when the profile's value is 0).
  double op_ratio() const;
  double parameter_ratio() const;
  double activation_ratio() const;
  double forward_ratio() const;
  double backward_ratio() const;
};

// Compares two graphs of one model (model name taken from the profile).
CalibrationRow calibrate(const LayerGraph& zoo, const LayerGraph& profile);

// The settings a PipeDream profile in ../shared/data/pipedream was measured at
// (read off its input and activation sizes), and the zoo model it matches.
struct ProfileSetting {
  std::string profile;    // file name without ".txt"
  std::string zoo_model;  // zoo name
  int batch = 0;
  int seq_len = 0;     // 0 = not a sequence model
  int image_size = 0;  // 0 = not an image model
};

const std::vector<ProfileSetting>& pipedream_profile_settings();

// For every profile of pipedream_profile_settings() present in `profile_dir`
// (skipping absent files), builds the zoo model at the profile's settings in
// fp32 on `device` and compares. Throws InputError if a present file is bad.
std::vector<CalibrationRow> calibration_report(const std::string& profile_dir,
                                               const DeviceModel& device);

// A fixed-width text table of the rows (one line per model, ratios zoo/profile).
std::string format_calibration_table(const std::vector<CalibrationRow>& rows);

}  // namespace pacml
