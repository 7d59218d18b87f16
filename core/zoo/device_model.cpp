#include "core/zoo/device_model.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config/bound_settings.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr int kDeviceFormatVersion = 1;

constexpr std::array<const char*, kNumOpKinds> kOpKindNames = {
    "conv", "linear",     "matmul",      "lstm", "embedding",
    "norm", "activation", "elementwise", "pool", "softmax"};

constexpr std::array<const char*, kNumHostFamilies> kHostFamilyNames = {"cnn", "transformer", "rnn",
                                                                        "other"};

// PyTorch 2 eager defaults, derived in doc/PHYSICAL.md §9 (not fitted): one
// op and pass is a Python module call (~3-5 us), the dispatcher and
// autograd's node (~3-5 us), the allocator and cudaLaunchKernel (~3-5 us per
// kernel, one to three kernels); a step adds the data loader's hand-off,
// zero_grad(set_to_none), the loss.item() synchronisation and the loop's own
// Python, 1-2 ms.
constexpr double kPyTorch2PerOp = 20e-6;
constexpr double kPyTorch2PerStep = 2e-3;
// Ranges: a per-op cost beyond 10 ms or a per-step one beyond 1 s is a unit
// slip (µs or ms written as seconds), not a host.
constexpr double kMaxHostPerOp = 1e-2;
constexpr double kMaxHostPerStep = 1;

// Plausible ranges of device quantities. A value outside one is almost
// always a unit slip (GB instead of bytes, µs instead of s) that would make
// every estimate silently absurd, so it is refused with the range named.
SettingKey plausible(std::string name, double min, double max, const char* unit,
                     std::string meaning) {
  return SettingKey(std::move(name), SettingType::kNumber, std::move(meaning))
      .range(min, max, unit);
}

const SettingsTable& peak_settings() {
  static const SettingsTable table("precision", [] {
    std::vector<SettingKey> keys;
    for (int p = 0; p < kNumPrecisions; ++p) {
      const char* name = precision_name(static_cast<Precision>(p));
      keys.push_back(plausible(name, 1e9, 1e17, "FLOP/s",
                               std::string("dense peak at ") + name +
                                   (p == 0 ? " (required)" : " (absent: unsupported)")));
    }
    return keys;
  }());
  return table;
}

const SettingsTable& efficiency_settings() {
  static const SettingsTable table("op kind", [] {
    std::vector<SettingKey> keys;
    for (const char* kind : kOpKindNames)
      keys.push_back(plausible(kind, 1e-3, 1, "fraction of peak",
                               std::string("what a compute-bound ") + kind + " op reaches"));
    return keys;
  }());
  return table;
}

const SettingsTable& host_family_settings() {
  static const SettingsTable table("model family", [] {
    std::vector<SettingKey> keys;
    for (const char* family : kHostFamilyNames)
      keys.push_back(plausible(family, 0, kMaxHostPerOp, "seconds",
                               std::string("host time per op and pass of a ") + family + " model"));
    return keys;
  }());
  return table;
}

// `per_op:` is one number for every model family, or a mapping that names
// each family (the fitted ElasticFlow values differ by family).
void read_host_per_op(const SettingsTable& keys, const YAML::Node& host, const std::string& source,
                      HostCost& cost) {
  const YAML::Node per_op = host["per_op"];
  if (!per_op.IsMap()) {
    cost.per_op.fill(keys.number(host, source, "per_op"));
    return;
  }
  host_family_settings().check_known(per_op, source);
  for (int f = 0; f < kNumHostFamilies; ++f) {
    if (!per_op[kHostFamilyNames[f]])
      throw InputError(yaml_where(source, per_op),
                       std::string("per_op: missing model family '") + kHostFamilyNames[f] +
                           "' (give one number for all, or every family)");
    cost.per_op[f] = host_family_settings().number(per_op, source, kHostFamilyNames[f]);
  }
}

// The keys of `host:`; what it leaves out keeps the PyTorch 2 default, the
// host of a default-built DeviceModel.
const BoundSettings<HostCost>& host_keys() {
  static const HostCost d = DeviceModel().host;
  static const BoundSettings<HostCost> keys(
      "host key",
      {bind_with<HostCost>(
           plausible("per_op", 0, kMaxHostPerOp, "seconds",
                     "per op and pass: a number, or one per model family (cnn, transformer, rnn, "
                     "other)")
               .defaults_to(default_text_of(d.per_op[0])),
           read_host_per_op),
       bind(plausible("per_step", 0, kMaxHostPerStep, "seconds",
                      "per training step, outside the ops"),
            &HostCost::per_step, d)});
  return keys;
}

void read_peaks(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                DeviceModel& device) {
  const YAML::Node peaks = keys.mapping(root, source, "peak_flops");
  peak_settings().check_known(peaks, source);
  for (int p = 0; p < kNumPrecisions; ++p) {
    const char* name = precision_name(static_cast<Precision>(p));
    // fp32 is what every GPU runs; fp16/bf16 may be absent (e.g. bf16 on V100).
    if (!peaks[name] && p != static_cast<int>(Precision::kFp32)) continue;
    device.peak_flops[p] = peak_settings().number(peaks, source, name);
  }
}

void read_efficiencies(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                       DeviceModel& device) {
  const YAML::Node eff = keys.mapping(root, source, "efficiency");
  efficiency_settings().check_known(eff, source);
  for (int k = 0; k < kNumOpKinds; ++k) {
    if (!eff[kOpKindNames[k]])
      throw InputError(yaml_where(source, eff),
                       std::string("efficiency: missing op kind '") + kOpKindNames[k] + "'");
    device.efficiency[k] = efficiency_settings().number(eff, source, kOpKindNames[k]);
  }
}

const BoundSettings<DeviceModel>& device_keys() {
  using T = SettingType;
  static const DeviceModel d;
  static const BoundSettings<DeviceModel> keys(
      "device key",
      {bind_with<DeviceModel>(
           SettingKey("pacml_device", T::kInteger, "format version: 1 (required)").range(1, 1000),
           [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
              DeviceModel&) {
             const long version = keys.integer(root, source, "pacml_device");
             if (version != kDeviceFormatVersion)
               throw InputError(yaml_where(source, root["pacml_device"]),
                                "unsupported device format version " + std::to_string(version));
           }),
       required(bind(SettingKey("name", T::kText, "shown in tables (required)"), &DeviceModel::name,
                     d,
                     [](const YAML::Node& node, const std::string& source) {
                       std::string name = yaml_scalar(node, source, "name");
                       if (name.empty())
                         throw InputError(yaml_where(source, node), "name is empty");
                       return name;
                     })),
       required(bind(plausible("memory_bytes", 1e8, 1e13, "bytes", "device memory (required)"),
                     &DeviceModel::memory_bytes, d)),
       required(bind(plausible("memory_bandwidth", 1e9, 1e14, "bytes/s",
                               "what a streaming kernel sustains (required)"),
                     &DeviceModel::memory_bandwidth, d)),
       required(
           bind(plausible("launch_overhead", 0, 1e-2, "seconds", "added per kernel (required)"),
                &DeviceModel::launch_overhead, d)),
       required(bind_with<DeviceModel>(
           SettingKey("peak_flops", T::kMapping, "precision: dense peak FLOP/s (fp32 required)"),
           read_peaks)),
       required(bind_with<DeviceModel>(
           SettingKey("efficiency", T::kMapping, "op kind: fraction of peak, every kind"),
           read_efficiencies)),
       bind_with<DeviceModel>(
           SettingKey("host", T::kMapping, "the host's cost: per_op, per_step (`device.host`)")
               .defaults_to("PyTorch 2 eager"),
           [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
              DeviceModel& device) {
             const YAML::Node host = keys.mapping(root, source, "host");
             host_keys().table().check_known(host, source);
             host_keys().read(host, source, device.host);
           })});
  return keys;
}

DeviceModel from_yaml(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap()) throw InputError(source, "expected a mapping with 'pacml_device: 1'");
  device_keys().table().check_known(root, source);
  if (!root["pacml_device"]) throw InputError(source, "missing 'pacml_device: 1' (format version)");
  DeviceModel device;
  device_keys().read(root, source, device);
  return device;
}

}  // namespace

const SettingsTable& device_settings() {
  return device_keys().table();
}

const SettingsTable& device_host_settings() {
  return host_keys().table();
}

const char* host_family_name(int family) {
  return kHostFamilyNames.at(family);
}

HostCost HostCost::pytorch2_eager() {
  HostCost cost;
  cost.per_op.fill(kPyTorch2PerOp);
  cost.per_step = kPyTorch2PerStep;
  return cost;
}

HostCost HostCost::elasticflow_2021() {
  // Fitted once against the points of `pacml calibrate` (doc/PHYSICAL.md
  // §6-§7) by a coordinate search; they describe ElasticFlow's 2021 harness
  // (PyTorch 1.x, its own data loading), not a GPU. Keep them with the
  // calibration test (tests/sim/calibration/calibration_test.cpp) passing. A CNN op
  // took ~60 us, a Hugging Face transformer op twice that, an RNN layer (one
  // cuDNN call per sequence) 30 us; "other" (profiled graphs) takes the CNN value.
  HostCost cost;
  cost.per_op = {/*cnn*/ 60e-6, /*transformer*/ 120e-6, /*rnn*/ 30e-6, /*other*/ 60e-6};
  cost.per_step = 20e-3;
  return cost;
}

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
  d.host = HostCost::elasticflow_2021();
  return d;
}

DeviceModel load_device_model(std::istream& in, const std::string& source) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source); });
}

std::string device_file_text(const DeviceModel& device, const std::vector<std::string>& comment) {
  std::ostringstream out;
  for (const std::string& entry : comment) {
    std::istringstream lines(entry);  // an entry's own newlines start new comment lines
    for (std::string line; std::getline(lines, line);)
      out << "#" << (line.empty() ? "" : " ") << line << "\n";
    if (entry.empty()) out << "#\n";
  }
  const auto number = [](double value) { return exact_number_text(value); };
  YAML::Emitter name;
  name << YAML::DoubleQuoted << device.name;
  out << "pacml_device: " << kDeviceFormatVersion << "\nname: " << name.c_str()
      << "\nmemory_bytes: " << number(device.memory_bytes)
      << "\nmemory_bandwidth: " << number(device.memory_bandwidth)
      << "\nlaunch_overhead: " << number(device.launch_overhead) << "\npeak_flops:\n";
  for (int p = 0; p < kNumPrecisions; ++p)
    if (device.peak_flops[p] > 0)
      out << "  " << precision_name(static_cast<Precision>(p)) << ": "
          << number(device.peak_flops[p]) << "\n";
  out << "efficiency:\n";
  for (int k = 0; k < kNumOpKinds; ++k)
    out << "  " << kOpKindNames[k] << ": " << number(device.efficiency[k]) << "\n";
  out << "host:\n  per_op:";
  const auto& per_op = device.host.per_op;
  if (std::all_of(per_op.begin(), per_op.end(), [&](double v) { return v == per_op[0]; })) {
    out << " " << number(per_op[0]) << "\n";
  } else {
    out << "\n";
    for (int f = 0; f < kNumHostFamilies; ++f)
      out << "    " << kHostFamilyNames[f] << ": " << number(per_op[f]) << "\n";
  }
  out << "  per_step: " << number(device.host.per_step) << "\n";
  return out.str();
}

DeviceModel load_device_model_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return load_device_model(in, path);
}

}  // namespace pacml
