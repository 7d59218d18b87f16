#include "core/cluster/cluster_spec.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/cluster/cluster_presets.h"
#include "core/cluster/plausible.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr int kFormatVersion = 1;

constexpr PlausibleRange kServers{1, 65536, "servers"};
constexpr PlausibleRange kGpus{1, 64, "GPUs"};

const std::set<std::string> kCommonKeys = {"pacml_cluster",
                                           "name",
                                           "network",
                                           "gpus_per_server",
                                           "device",
                                           "gpu_memory",
                                           "server_bandwidth",
                                           "network_latency",
                                           "intra_server_bandwidth",
                                           "intra_server_latency"};
const std::set<std::string> kFabricKeys = {"servers"};
const std::set<std::string> kRampKeys = {"shape", "propagation_latency", "io_latency"};

int integer_in(const YAML::Node& node, const std::string& source, const std::string& key,
               const PlausibleRange& range) {
  return static_cast<int>(
      yaml_integer(node, source, key, static_cast<long>(range.min), static_cast<long>(range.max)));
}

void check_keys(const YAML::Node& root, NetworkKind network, const std::string& source) {
  const std::set<std::string>& own = network == NetworkKind::kFabric ? kFabricKeys : kRampKeys;
  const std::set<std::string>& other = network == NetworkKind::kFabric ? kRampKeys : kFabricKeys;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (kCommonKeys.count(key) || own.count(key)) continue;
    const std::string where = yaml_where(source, kv.first);
    if (other.count(key))
      throw InputError(where, "'" + key + "' belongs to a " +
                                  (network == NetworkKind::kFabric ? "ramp" : "fabric") +
                                  " network, not this " + network_kind_name(network) + " one");
    std::string known;
    for (const auto* set : {&kCommonKeys, &own})
      for (const std::string& k : *set) known += (known.empty() ? "" : ", ") + k;
    throw InputError(where, "unknown cluster key '" + key + "'; known: " + known);
  }
}

NetworkKind read_network(const YAML::Node& root, const std::string& source) {
  if (!root["network"]) throw InputError(source, "missing 'network: fabric' or 'network: ramp'");
  const std::string text = yaml_scalar(root["network"], source, "network");
  if (text == "fabric") return NetworkKind::kFabric;
  if (text == "ramp") return NetworkKind::kRamp;
  throw InputError(yaml_where(source, root["network"]),
                   "network must be 'fabric' or 'ramp', got '" + text + "'");
}

void read_version(const YAML::Node& root, const std::string& source) {
  if (!root["pacml_cluster"])
    throw InputError(source, "missing 'pacml_cluster: 1' (format version)");
  const YAML::Node node = root["pacml_cluster"];
  if (yaml_integer(node, source, "pacml_cluster version", 1, 1000) != kFormatVersion)
    throw InputError(yaml_where(source, node), "unsupported cluster format version");
}

void read_servers(const YAML::Node& root, const std::string& source, ClusterSpec& spec) {
  if (spec.network == NetworkKind::kFabric) {
    if (!root["servers"]) throw InputError(source, "a fabric cluster needs 'servers: N'");
    spec.ramp.groups = spec.ramp.racks = 1;
    spec.ramp.servers_per_rack = integer_in(root["servers"], source, "servers", kServers);
    return;
  }
  if (!root["shape"]) throw InputError(source, "a ramp cluster needs 'shape: CxRxS'");
  const YAML::Node node = root["shape"];
  const RampParams shape =
      RampTopology::parse(yaml_scalar(node, source, "shape"), yaml_where(source, node)).params();
  spec.ramp.groups = shape.groups;
  spec.ramp.racks = shape.racks;
  spec.ramp.servers_per_rack = shape.servers_per_rack;
  if (root["propagation_latency"])
    spec.ramp.propagation_latency = yaml_plausible(root["propagation_latency"], source,
                                                   "propagation_latency", kPlausibleLatency);
  if (root["io_latency"])
    spec.ramp.io_latency =
        yaml_plausible(root["io_latency"], source, "io_latency", kPlausibleLatency);
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void read_device(const YAML::Node& root, const std::string& source, const std::string& base_dir,
                 ClusterSpec& spec) {
  if (root["device"]) {
    const YAML::Node node = root["device"];
    std::string name = yaml_scalar(node, source, "device");
    const bool is_path =
        name.find('/') != std::string::npos || name.find(".yaml") != std::string::npos;
    if (is_path && !name.empty() && name[0] != '/') name = base_dir + "/" + name;
    spec.device = load_device(name, yaml_where(source, node));
  }
  spec.gpu_memory = spec.device.memory_bytes;
  if (root["gpu_memory"])
    spec.gpu_memory = yaml_plausible(root["gpu_memory"], source, "gpu_memory", kPlausibleMemory);
  spec.device.memory_bytes = spec.gpu_memory;
}

void read_links(const YAML::Node& root, const std::string& source, ClusterSpec& spec) {
  if (root["server_bandwidth"])
    spec.server_bandwidth =
        yaml_plausible(root["server_bandwidth"], source, "server_bandwidth", kPlausibleBandwidth);
  if (root["network_latency"])
    spec.network_latency =
        yaml_plausible(root["network_latency"], source, "network_latency", kPlausibleLatency);
  if (root["gpus_per_server"])
    spec.gpus_per_server = integer_in(root["gpus_per_server"], source, "gpus_per_server", kGpus);
  if (root["intra_server_bandwidth"])
    spec.intra_server_bandwidth = yaml_plausible(root["intra_server_bandwidth"], source,
                                                 "intra_server_bandwidth", kPlausibleBandwidth);
  else if (spec.gpus_per_server > 1)
    throw InputError(source, "a server with " + std::to_string(spec.gpus_per_server) +
                                 " GPUs needs 'intra_server_bandwidth' (bytes/s per GPU)");
  if (root["intra_server_latency"])
    spec.intra_server_latency = yaml_plausible(root["intra_server_latency"], source,
                                               "intra_server_latency", kPlausibleLatency);
}

ClusterSpec from_yaml(const YAML::Node& root, const std::string& source,
                      const std::string& base_dir) {
  if (!root.IsMap()) throw InputError(source, "expected a mapping with 'pacml_cluster: 1'");
  read_version(root, source);
  ClusterSpec spec;
  spec.network = read_network(root, source);
  check_keys(root, spec.network, source);
  spec.name = root["name"] ? yaml_scalar(root["name"], source, "name") : source;
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
  for (const ClusterPreset& preset : cluster_presets()) names.push_back(preset.name);
  return names;
}

const char* cluster_preset_text(const std::string& name) {
  std::string key = name;
  // "dgx-a100-16x8.yaml" names the preset too, as the file in contrib/clusters/.
  if (ends_with(key, ".yaml") && key.size() > 5 && key.find('/') == std::string::npos)
    key.resize(key.size() - 5);
  for (const ClusterPreset& preset : cluster_presets())
    if (key == preset.name) return preset.yaml;
  return nullptr;
}

DeviceModel load_device(const std::string& name_or_path, const std::string& where) {
  if (name_or_path == "a100" || name_or_path == "A100-SXM4-80GB") return DeviceModel::a100();
  if (const char* text = builtin_device_text(name_or_path)) {
    std::istringstream in(text);
    return load_device_model(in, "built-in device '" + name_or_path + "'");
  }
  std::ifstream file(name_or_path);
  if (!file)
    throw InputError(where, "device '" + name_or_path +
                                "' is neither built in (a100, v100) nor a readable device file");
  return load_device_model(file, name_or_path);
}

}  // namespace pacml
