#include "core/cluster/cluster_spec.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/cluster/cluster_presets.h"
#include "core/cluster/plausible.h"
#include "core/config/settings_table.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr int kFormatVersion = 1;
const char* const kFabric = "network: fabric";
const char* const kRamp = "network: ramp";

SettingKey plausible(const char* name, const PlausibleRange& range, const char* meaning) {
  return SettingKey(name, SettingType::kNumber, meaning).range(range.min, range.max, range.unit);
}

SettingKey count(const char* name, double max, const char* meaning) {
  return SettingKey(name, SettingType::kInteger, meaning).range(1, max);
}

int integer(const YAML::Node& root, const std::string& source, const std::string& key) {
  return static_cast<int>(cluster_settings().integer(root, source, key));
}

double number(const YAML::Node& root, const std::string& source, const std::string& key) {
  return cluster_settings().number(root, source, key);
}

NetworkKind read_network(const YAML::Node& root, const std::string& source) {
  if (!root["network"]) throw InputError(source, "missing 'network: fabric' or 'network: ramp'");
  return cluster_settings().choice(root, source, "network") == "fabric" ? NetworkKind::kFabric
                                                                        : NetworkKind::kRamp;
}

void read_version(const YAML::Node& root, const std::string& source) {
  if (!root["pacml_cluster"])
    throw InputError(source, "missing 'pacml_cluster: 1' (format version)");
  if (integer(root, source, "pacml_cluster") != kFormatVersion)
    throw InputError(yaml_where(source, root["pacml_cluster"]),
                     "unsupported cluster format version");
}

void read_servers(const YAML::Node& root, const std::string& source, ClusterSpec& spec) {
  if (spec.network == NetworkKind::kFabric) {
    if (!root["servers"]) throw InputError(source, "a fabric cluster needs 'servers: N'");
    spec.ramp.groups = spec.ramp.racks = 1;
    spec.ramp.servers_per_rack = integer(root, source, "servers");
    return;
  }
  if (!root["shape"]) throw InputError(source, "a ramp cluster needs 'shape: CxRxS'");
  const RampParams shape = RampTopology::parse(cluster_settings().text(root, source, "shape"),
                                               yaml_where(source, root["shape"]))
                               .params();
  spec.ramp.groups = shape.groups;
  spec.ramp.racks = shape.racks;
  spec.ramp.servers_per_rack = shape.servers_per_rack;
  if (root["propagation_latency"])
    spec.ramp.propagation_latency = number(root, source, "propagation_latency");
  if (root["io_latency"]) spec.ramp.io_latency = number(root, source, "io_latency");
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void read_device(const YAML::Node& root, const std::string& source, const std::string& base_dir,
                 ClusterSpec& spec) {
  if (root["device"]) {
    const YAML::Node node = root["device"];
    std::string name = cluster_settings().text(root, source, "device");
    const bool is_path =
        name.find('/') != std::string::npos || name.find(".yaml") != std::string::npos;
    if (is_path && !name.empty() && name[0] != '/') name = base_dir + "/" + name;
    spec.device = load_device(name, yaml_where(source, node));
  }
  spec.gpu_memory = spec.device.memory_bytes;
  if (root["gpu_memory"]) spec.gpu_memory = number(root, source, "gpu_memory");
  spec.device.memory_bytes = spec.gpu_memory;
}

void read_links(const YAML::Node& root, const std::string& source, ClusterSpec& spec) {
  if (root["server_bandwidth"]) spec.server_bandwidth = number(root, source, "server_bandwidth");
  if (root["network_latency"]) spec.network_latency = number(root, source, "network_latency");
  if (root["gpus_per_server"]) spec.gpus_per_server = integer(root, source, "gpus_per_server");
  if (root["intra_server_bandwidth"])
    spec.intra_server_bandwidth = number(root, source, "intra_server_bandwidth");
  else if (spec.gpus_per_server > 1)
    throw InputError(source, "a server with " + std::to_string(spec.gpus_per_server) +
                                 " GPUs needs 'intra_server_bandwidth' (bytes/s per GPU)");
  if (root["intra_server_latency"])
    spec.intra_server_latency = number(root, source, "intra_server_latency");
}

ClusterSpec from_yaml(const YAML::Node& root, const std::string& source,
                      const std::string& base_dir) {
  if (!root.IsMap()) throw InputError(source, "expected a mapping with 'pacml_cluster: 1'");
  read_version(root, source);
  ClusterSpec spec;
  spec.network = read_network(root, source);
  cluster_settings().check_known(root, source,
                                 spec.network == NetworkKind::kFabric ? kFabric : kRamp);
  spec.name = root["name"] ? cluster_settings().text(root, source, "name") : source;
  read_servers(root, source, spec);
  read_device(root, source, base_dir, spec);
  read_links(root, source, spec);
  // The RAMP parameters mirror the cluster's, so the paper's placement and
  // collective code sees the same bandwidth and memory.
  spec.ramp.node_bandwidth = spec.server_bandwidth;
  spec.ramp.worker_memory = spec.gpu_memory;
  if (spec.network == NetworkKind::kRamp)
    spec.network_latency = spec.ramp.propagation_latency + 2 * spec.ramp.io_latency;
  RampTopology(spec.ramp, source);  // validates the shape rules (R <= C, sizes)
  return spec;
}

}  // namespace

const SettingsTable& cluster_settings() {
  using T = SettingType;
  static const SettingsTable table(
      "cluster key",
      {count("pacml_cluster", 1000, "format version: 1 (required)"),
       SettingKey("name", T::kText, "shown in tables and plots").defaults_to("the file name"),
       SettingKey("network", T::kChoice,
                  "how servers are joined: a non-blocking fabric or the paper's RAMP (required)")
           .one_of({"fabric", "ramp"}),
       count("servers", 65536, "how many servers (required)").only_with(kFabric),
       SettingKey("shape", T::kText, "C groups x R racks x S servers per rack (required)")
           .only_with(kRamp),
       count("gpus_per_server", 64, "GPUs in each server: G").defaults_to("1"),
       SettingKey("device", T::kText,
                  "a built-in GPU (contrib/devices: a100, h200, ...) or a device file")
           .defaults_to("a100"),
       plausible("gpu_memory", kPlausibleMemory, "memory per GPU").defaults_to("the device's"),
       plausible("server_bandwidth", kPlausibleBandwidth, "what one server injects")
           .defaults_to("1.6e12"),
       plausible("network_latency", kPlausibleLatency, "per message between servers")
           .defaults_to("150e-9")
           .only_with(kFabric),
       plausible("intra_server_bandwidth", kPlausibleBandwidth,
                 "per GPU inside a server (NVLink); required when G > 1"),
       plausible("intra_server_latency", kPlausibleLatency, "per message inside a server")
           .defaults_to("2e-6"),
       plausible("propagation_latency", kPlausibleLatency, "the paper's propagation delay")
           .defaults_to("50e-9")
           .only_with(kRamp),
       plausible("io_latency", kPlausibleLatency, "the paper's worker I/O delay, paid twice")
           .defaults_to("100e-9")
           .only_with(kRamp)});
  return table;
}

const char* network_kind_name(NetworkKind kind) {
  return kind == NetworkKind::kFabric ? "fabric" : "ramp";
}

RampTopology ClusterSpec::topology() const {
  return RampTopology(ramp, name);
}

std::string ClusterSpec::summary() const {
  std::string text = std::string(network_kind_name(network)) + " ";
  text += network == NetworkKind::kRamp ? topology().shape() + " (" : "";
  text += std::to_string(num_servers()) + " servers";
  text += network == NetworkKind::kRamp ? ")" : "";
  return text + " x " + std::to_string(gpus_per_server) + " GPU" +
         (gpus_per_server > 1 ? "s" : "") + " (" + device.name + ")";
}

ClusterSpec ClusterSpec::paper(const RampTopology& topology) {
  ClusterSpec spec;
  spec.name = "paper-" + topology.shape();
  spec.network = NetworkKind::kRamp;
  spec.ramp = topology.params();
  spec.gpus_per_server = 1;
  spec.device = DeviceModel::a100();
  spec.gpu_memory = spec.ramp.worker_memory;
  spec.device.memory_bytes = spec.gpu_memory;
  spec.server_bandwidth = spec.ramp.node_bandwidth;
  spec.network_latency = spec.ramp.propagation_latency + 2 * spec.ramp.io_latency;
  return spec;
}

ClusterSpec load_cluster_spec(std::istream& in, const std::string& source,
                              const std::string& base_dir) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source, base_dir); });
}

ClusterSpec load_cluster(const std::string& arg, const std::string& where) {
  if (arg.empty()) throw InputError(where, "empty cluster name");
  if (const char* text = cluster_preset_text(arg)) {
    std::istringstream in(text);
    return load_cluster_spec(in, "cluster preset '" + arg + "'");
  }
  std::ifstream file(arg);
  if (!file) {
    std::string names;
    for (const std::string& n : cluster_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(
        where, "'" + arg + "' is neither a readable cluster file nor a preset (" + names + ")");
  }
  return load_cluster_spec(file, arg, directory_of(arg));
}

std::vector<std::string> cluster_preset_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile& preset : cluster_presets()) names.push_back(preset.name);
  return names;
}

const char* cluster_preset_text(const std::string& name) {
  std::string key = name;
  // "dgx-a100-16x8.yaml" names the preset too, as the file in contrib/clusters/.
  if (ends_with(key, ".yaml") && key.size() > 5 && key.find('/') == std::string::npos)
    key.resize(key.size() - 5);
  return find_embedded(cluster_presets(), key);
}

DeviceModel load_device(const std::string& name_or_path, const std::string& where) {
  if (name_or_path == "a100" || name_or_path == "A100-SXM4-80GB") return DeviceModel::a100();
  if (const char* text = builtin_device_text(name_or_path)) {
    std::istringstream in(text);
    return load_device_model(in, "built-in device '" + name_or_path + "'");
  }
  std::ifstream file(name_or_path);
  if (!file) {
    std::string names;
    for (const EmbeddedFile& device : builtin_device_files())
      names += (names.empty() ? "" : ", ") + std::string(device.name);
    throw InputError(where, "device '" + name_or_path + "' is neither built in (" + names +
                                ") nor a readable device file");
  }
  return load_device_model(file, name_or_path);
}

}  // namespace pacml
