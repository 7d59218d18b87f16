#include "core/zoo/device_model.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr int kDeviceFormatVersion = 1;

constexpr std::array<const char*, kNumOpKinds> kOpKindNames = {
    "conv", "linear",     "matmul",      "lstm", "embedding",
    "norm", "activation", "elementwise", "pool", "softmax"};

std::string scalar_text(const YAML::Node& node, const std::string& source,
                        const std::string& what) {
  if (!node.IsScalar())
    throw InputError(yaml_where(source, node), what + " must be a single value");
  return node.Scalar();
}

// The plausible range of a device quantity. A value outside it is almost
// always a unit slip (GB instead of bytes, µs instead of s) that would make
// every estimate silently absurd, so it is refused with the range named.
struct Plausible {
  double min, max;  // inclusive
  const char* unit;
};
constexpr Plausible kMemoryBytes{1e8, 1e13, "bytes"};          // 100 MB .. 10 TB
constexpr Plausible kMemoryBandwidth{1e9, 1e14, "bytes/s"};    // 1 GB/s .. 100 TB/s
constexpr Plausible kLaunchOverhead{0, 1e-2, "seconds"};       // none .. 10 ms
constexpr Plausible kPeakFlops{1e9, 1e17, "FLOP/s"};           // 1 GFLOP/s .. 100 PFLOP/s
constexpr Plausible kEfficiency{1e-3, 1, "fraction of peak"};  // 0.1% .. 100%

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// A required number at map[key] inside `range`.
double required_number(const YAML::Node& map, const std::string& key, const std::string& source,
                       const Plausible& range) {
  const YAML::Node node = map[key];
  if (!node) throw InputError(yaml_where(source, map), "missing '" + key + "'");
  const std::string where = yaml_where(source, node);
  const double value = parse_non_negative(scalar_text(node, source, key), where, key);
  if (value < range.min || value > range.max)
    throw InputError(where, key + " = " + number_text(value) + " is outside the plausible range [" +
                                number_text(range.min) + ", " + number_text(range.max) + "] " +
                                range.unit + " (a unit slip?)");
  return value;
}

YAML::Node require_map(const YAML::Node& node, const std::string& key, const std::string& source,
                       const YAML::Node& parent) {
  if (!node) throw InputError(yaml_where(source, parent), "missing '" + key + "'");
  if (!node.IsMap()) throw InputError(yaml_where(source, node), "'" + key + "' must be a mapping");
  return node;
}

void reject_unknown_keys(const YAML::Node& map, const std::set<std::string>& known,
                         const std::string& source, const std::string& what) {
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (known.count(key)) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(yaml_where(source, kv.first),
                     "unknown " + what + " '" + key + "'; known: " + list);
  }
}

void read_peaks(const YAML::Node& root, const std::string& source, DeviceModel& device) {
  const YAML::Node peaks = require_map(root["peak_flops"], "peak_flops", source, root);
  std::set<std::string> names;
  for (int p = 0; p < kNumPrecisions; ++p) names.insert(precision_name(static_cast<Precision>(p)));
  reject_unknown_keys(peaks, names, source, "precision");
  for (int p = 0; p < kNumPrecisions; ++p) {
    const char* name = precision_name(static_cast<Precision>(p));
    // fp32 is what every GPU runs; fp16/bf16 may be absent (e.g. bf16 on V100).
    if (!peaks[name] && p != static_cast<int>(Precision::kFp32)) continue;
    device.peak_flops[p] = required_number(peaks, name, source, kPeakFlops);
  }
}

void read_efficiencies(const YAML::Node& root, const std::string& source, DeviceModel& device) {
  const YAML::Node eff = require_map(root["efficiency"], "efficiency", source, root);
  reject_unknown_keys(eff, std::set<std::string>(kOpKindNames.begin(), kOpKindNames.end()), source,
                      "op kind");
  for (int k = 0; k < kNumOpKinds; ++k) {
    const std::string key = kOpKindNames[k];
    if (!eff[key])
      throw InputError(yaml_where(source, eff), "efficiency: missing op kind '" + key + "'");
    device.efficiency[k] = required_number(eff, key, source, kEfficiency);
  }
}

DeviceModel from_yaml(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap()) throw InputError(source, "expected a mapping with 'pacml_device: 1'");
  reject_unknown_keys(root,
                      {"pacml_device", "name", "memory_bytes", "memory_bandwidth",
                       "launch_overhead", "peak_flops", "efficiency"},
                      source, "key");
  if (!root["pacml_device"]) throw InputError(source, "missing 'pacml_device: 1' (format version)");
  long version = parse_integer(scalar_text(root["pacml_device"], source, "pacml_device"), 1, 1000,
                               yaml_where(source, root["pacml_device"]), "pacml_device version");
  if (version != kDeviceFormatVersion)
    throw InputError(yaml_where(source, root["pacml_device"]),
                     "unsupported device format version " + std::to_string(version));
  DeviceModel device;
  if (!root["name"]) throw InputError(yaml_where(source, root), "missing 'name'");
  device.name = scalar_text(root["name"], source, "name");
  if (device.name.empty()) throw InputError(yaml_where(source, root["name"]), "name is empty");
  device.memory_bytes = required_number(root, "memory_bytes", source, kMemoryBytes);
  device.memory_bandwidth = required_number(root, "memory_bandwidth", source, kMemoryBandwidth);
  device.launch_overhead = required_number(root, "launch_overhead", source, kLaunchOverhead);
  read_peaks(root, source, device);
  read_efficiencies(root, source, device);
  return device;
}

}  // namespace

const char* op_kind_name(OpKind kind) {
  return kOpKindNames[static_cast<int>(kind)];
}

double DeviceModel::peak(Precision precision) const {
  double value = peak_flops[static_cast<int>(precision)];
  if (value <= 0)
    throw InputError(name, std::string("this device model has no ") + precision_name(precision) +
                               " peak throughput (add it under peak_flops)");
  return value;
}

DeviceModel DeviceModel::a100() {
  // Keep in step with contrib/devices/a100.yaml (a test compares them).
  DeviceModel d;
  d.name = "A100-SXM4-80GB";
  d.memory_bytes = 80e9;
  d.memory_bandwidth = 1.8e12;  // datasheet 2.039e12; ~88% is what a copy kernel sustains
  d.launch_overhead = 10e-6;
  d.peak_flops = {19.5e12, 312e12, 312e12,
                  156e12};  // fp32 (no TF32), fp16, bf16, tf32 tensor cores
  d.efficiency = {/*conv*/ 0.7,        /*linear*/ 0.7, /*matmul*/ 0.5,     /*lstm*/ 0.7,
                  /*embedding*/ 0.5,   /*norm*/ 0.5,   /*activation*/ 0.5,
                  /*elementwise*/ 0.5, /*pool*/ 0.5,   /*softmax*/ 0.5};
  return d;
}

DeviceModel load_device_model(std::istream& in, const std::string& source) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source); });
}

DeviceModel load_device_model_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return load_device_model(in, path);
}

}  // namespace pacml
