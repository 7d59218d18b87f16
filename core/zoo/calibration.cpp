#include "core/zoo/calibration.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

#include "core/graph/pipedream_reader.h"
#include "core/zoo/model_zoo.h"

namespace pacml {
namespace {

double ratio(double zoo, double profile) {
  return profile == 0 ? 0 : zoo / profile;
}

bool file_exists(const std::string& path) {
  return std::ifstream(path).good();
}

// "zoo/profile ratio", e.g. "244.4/244.4 1.00".
std::string pair_cell(double zoo, double profile, double ratio, int decimals) {
  char cell[96];
  std::snprintf(cell, sizeof cell, "%.*f/%.*f %.2f", decimals, zoo, decimals, profile, ratio);
  return cell;
}

std::string table_line(const std::vector<std::string>& cells) {
  static const int kWidths[] = {14, 6, 14, 22, 22, 22, 22};
  std::ostringstream line;
  for (size_t i = 0; i < cells.size(); ++i)
    line << (i == 1 ? std::right : std::left) << std::setw(kWidths[i]) << cells[i] << ' ';
  std::string text = line.str();
  return text.substr(0, text.find_last_not_of(' ') + 1) + "\n";
}

}  // namespace

GraphTotals graph_totals(const LayerGraph& graph) {
  std::vector<bool> has_input(graph.num_layers(), false);
  for (const LayerEdge& e : graph.edges) has_input[e.dst] = true;
  GraphTotals totals;
  totals.ops = graph.num_layers();
  for (int i = 0; i < graph.num_layers(); ++i) {
    const Layer& layer = graph.layers[i];
    totals.parameter_bytes += layer.parameter_bytes;
    totals.activation_bytes += layer.activation_bytes;
    if (!has_input[i]) continue;  // a data source: its time is the data loader's
    totals.forward_ms += layer.forward_time;
    totals.backward_ms += layer.backward_time;
  }
  return totals;
}

double CalibrationRow::op_ratio() const {
  return ratio(zoo.ops, profile.ops);
}
double CalibrationRow::parameter_ratio() const {
  return ratio(zoo.parameter_bytes, profile.parameter_bytes);
}
double CalibrationRow::activation_ratio() const {
  return ratio(zoo.activation_bytes, profile.activation_bytes);
}
double CalibrationRow::forward_ratio() const {
  return ratio(zoo.forward_ms, profile.forward_ms);
}
double CalibrationRow::backward_ratio() const {
  return ratio(zoo.backward_ms, profile.backward_ms);
}

CalibrationRow calibrate(const LayerGraph& zoo, const LayerGraph& profile) {
  CalibrationRow row;
  row.model = profile.model_name;
  row.zoo = graph_totals(zoo);
  row.profile = graph_totals(profile);
  return row;
}

const std::vector<ProfileSetting>& pipedream_profile_settings() {
  // Batch sizes follow from the profiles' sizes: e.g. alexnet's Input holds
  // 154,140,672 bytes = 256 x 3 x 224 x 224 x 4. GNMT: the LSTM hidden state is
  // 131,072 bytes = 32 x 1024 x 4, the source 48 tokens (target 47; the zoo uses
  // one length for both).
  static const std::vector<ProfileSetting> settings = {
      {"alexnet", "alexnet", 256, 0, 224},
      {"vgg16", "vgg16", 128, 0, 224},
      {"resnet18", "resnet18", 256, 0, 224},
      {"squeezenet1_0", "squeezenet1_0", 256, 0, 224},
      {"gnmt", "gnmt", 32, 48, 0},
      {"resnet50", "resnet50", 128, 0, 224},
      {"resnext50", "resnext50_32x4d", 128, 0, 224},
  };
  return settings;
}

std::vector<CalibrationRow> calibration_report(const std::string& profile_dir,
                                               const DeviceModel& device) {
  std::vector<CalibrationRow> rows;
  for (const ProfileSetting& setting : pipedream_profile_settings()) {
    const std::string path = profile_dir + "/" + setting.profile + ".txt";
    if (!file_exists(path)) continue;
    ZooOptions options;
    options.batch = setting.batch;
    if (setting.seq_len) options.seq_len = setting.seq_len;
    if (setting.image_size) options.image_size = setting.image_size;
    options.device = device;
    CalibrationRow row =
        calibrate(build_zoo_model(setting.zoo_model, options).graph, read_pipedream_file(path));
    row.model = setting.profile;
    row.device = device.name;
    row.batch = setting.batch;
    rows.push_back(row);
  }
  return rows;
}

std::string format_calibration_table(const std::vector<CalibrationRow>& rows) {
  std::string out =
      table_line({"model", "batch", "ops zoo/prof", "param MB zoo/prof", "activation MB zoo/prof",
                  "forward ms zoo/prof", "backward ms zoo/prof"});
  for (const CalibrationRow& r : rows)
    out += table_line({r.model, std::to_string(r.batch),
                       pair_cell(r.zoo.ops, r.profile.ops, r.op_ratio(), 0),
                       pair_cell(r.zoo.parameter_bytes / 1e6, r.profile.parameter_bytes / 1e6,
                                 r.parameter_ratio(), 1),
                       pair_cell(r.zoo.activation_bytes / 1e6, r.profile.activation_bytes / 1e6,
                                 r.activation_ratio(), 0),
                       pair_cell(r.zoo.forward_ms, r.profile.forward_ms, r.forward_ratio(), 1),
                       pair_cell(r.zoo.backward_ms, r.profile.backward_ms, r.backward_ratio(), 1)});
  return out;
}

}  // namespace pacml
