#include "core/cluster/cluster_spec.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/cluster/cluster_presets.h"
#include "core/cluster/plausible.h"
#include "core/config/bound_settings.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr int kFormatVersion = 1;
const char* const kFabric = "network: fabric";
const char* const kRamp = "network: ramp";

using T = SettingType;

// What a cluster file is read into: the spec, and the file's directory for
// a device file named relative to it.
struct ClusterFile {
  ClusterSpec spec;
  std::string base_dir = ".";
};
using Binding = BoundSettings<ClusterFile>::Binding;

const BoundSettings<ClusterFile>& cluster_keys();

SettingKey plausible(const char* name, const PlausibleRange& range, const char* meaning) {
  return SettingKey(name, T::kNumber, meaning).range(range.min, range.max, range.unit);
}

SettingKey count(const char* name, double max, const char* meaning) {
  return SettingKey(name, T::kInteger, meaning).range(1, max);
}

NetworkKind read_network(const YAML::Node& root, const std::string& source) {
  if (!root["network"]) throw InputError(source, "missing 'network: fabric' or 'network: ramp'");
  return cluster_keys().table().choice(root, source, "network") == "fabric" ? NetworkKind::kFabric
                                                                            : NetworkKind::kRamp;
}

void read_version(const YAML::Node& root, const std::string& source) {
  if (!root["pacml_cluster"])
    throw InputError(source, "missing 'pacml_cluster: 1' (format version)");
  if (cluster_keys().table().integer(root, source, "pacml_cluster") != kFormatVersion)
    throw InputError(yaml_where(source, root["pacml_cluster"]),
                     "unsupported cluster format version");
}

// A fabric's servers, kept as the RAMP shape 1x1xN.
void read_servers(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                  ClusterFile& file) {
  file.spec.ramp.groups = file.spec.ramp.racks = 1;
  file.spec.ramp.servers_per_rack = static_cast<int>(keys.integer(root, source, "servers"));
}

void read_shape(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                ClusterFile& file) {
  const RampParams shape =
      RampTopology::parse(keys.text(root, source, "shape"), yaml_where(source, root["shape"]))
          .params();
  file.spec.ramp.groups = shape.groups;
  file.spec.ramp.racks = shape.racks;
  file.spec.ramp.servers_per_rack = shape.servers_per_rack;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void read_device(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                 ClusterFile& file) {
  std::string name = keys.text(root, source, "device");
  const bool is_path =
      name.find('/') != std::string::npos || name.find(".yaml") != std::string::npos;
  if (is_path && !name.empty() && name[0] != '/') name = file.base_dir + "/" + name;
  file.spec.device = load_device(name, yaml_where(source, root["device"]));
}

// A member of the spec; the RAMP parameters are members of spec.ramp.
template <class M>
auto of_spec(M ClusterSpec::*member) {
  return nested(&ClusterFile::spec, member);
}
template <class M>
auto of_ramp(M RampParams::*member) {
  return nested(of_spec(&ClusterSpec::ramp), member);
}

// The keys in the order they are read: `network` before the keys of its
// kind, `device` before `gpu_memory`. `name` and `gpu_memory` say their
// defaults in words (the file's, the device's); `intra_server_bandwidth`
// has none (a server of one GPU needs none, of several must give it).
std::vector<Binding> cluster_bindings(const ClusterFile& d) {
  return {
      bind_with<ClusterFile>(
          count("pacml_cluster", 1000, "format version: 1 (required)"),
          [](const SettingsTable&, const YAML::Node& root, const std::string& source,
             ClusterFile&) { read_version(root, source); }),
      bind_with<ClusterFile>(
          SettingKey("name", T::kText, "shown in tables and plots").defaults_to("the file name"),
          [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
             ClusterFile& file) { file.spec.name = keys.text(root, source, "name"); }),
      bind_with<ClusterFile>(
          SettingKey("network", T::kChoice,
                     "how servers are joined: a non-blocking fabric or the paper's RAMP (required)")
              .one_of(
                  {network_kind_name(NetworkKind::kFabric), network_kind_name(NetworkKind::kRamp)}),
          [](const SettingsTable&, const YAML::Node& root, const std::string& source,
             ClusterFile& file) { file.spec.network = read_network(root, source); }),
      bind_with<ClusterFile>(
          count("servers", 65536, "how many servers (required)").only_with(kFabric), read_servers),
      bind_with<ClusterFile>(
          SettingKey("shape", T::kText, "C groups x R racks x S servers per rack (required)")
              .only_with(kRamp),
          read_shape),
      bind(count("gpus_per_server", 64, "GPUs in each server: G"),
           of_spec(&ClusterSpec::gpus_per_server), d),
      bind_with<ClusterFile>(
          SettingKey("device", T::kText,
                     "a built-in GPU (contrib/devices: a100, h200, ...) or a device file")
              .defaults_to("a100"),
          read_device),
      bind_with<ClusterFile>(
          plausible("gpu_memory", kPlausibleMemory, "memory per GPU").defaults_to("the device's"),
          [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
             ClusterFile& file) {
            file.spec.gpu_memory = keys.number(root, source, "gpu_memory");
          }),
      bind(plausible("server_bandwidth", kPlausibleBandwidth, "what one server injects"),
           of_spec(&ClusterSpec::server_bandwidth), d),
      bind(plausible("network_latency", kPlausibleLatency, "per message between servers")
               .only_with(kFabric),
           of_spec(&ClusterSpec::network_latency), d),
      bind_with<ClusterFile>(plausible("intra_server_bandwidth", kPlausibleBandwidth,
                                       "per GPU inside a server (NVLink); required when G > 1"),
                             [](const SettingsTable& keys, const YAML::Node& root,
                                const std::string& source, ClusterFile& file) {
                               file.spec.intra_server_bandwidth =
                                   keys.number(root, source, "intra_server_bandwidth");
                             }),
      bind(plausible("intra_server_latency", kPlausibleLatency, "per message inside a server"),
           of_spec(&ClusterSpec::intra_server_latency), d),
      bind(plausible("propagation_latency", kPlausibleLatency, "the paper's propagation delay")
               .only_with(kRamp),
           of_ramp(&RampParams::propagation_latency), d),
      bind(plausible("io_latency", kPlausibleLatency, "the paper's worker I/O delay, paid twice")
               .only_with(kRamp),
           of_ramp(&RampParams::io_latency), d),
  };
}

const BoundSettings<ClusterFile>& cluster_keys() {
  static const ClusterFile d;
  static const BoundSettings<ClusterFile> keys("cluster key", cluster_bindings(d));
  return keys;
}

ClusterSpec from_yaml(const YAML::Node& root, const std::string& source,
                      const std::string& base_dir) {
  if (!root.IsMap()) throw InputError(source, "expected a mapping with 'pacml_cluster: 1'");
  // The version and the network first, with their own messages when absent:
  // the network says which keys apply (the read loop reads both again).
  read_version(root, source);
  ClusterFile file;
  file.base_dir = base_dir;
  ClusterSpec& spec = file.spec;
  spec.name = source;
  spec.network = read_network(root, source);
  cluster_keys().table().check_known(root, source,
                                     spec.network == NetworkKind::kFabric ? kFabric : kRamp);
  if (spec.network == NetworkKind::kFabric && !root["servers"])
    throw InputError(source, "a fabric cluster needs 'servers: N'");
  if (spec.network == NetworkKind::kRamp && !root["shape"])
    throw InputError(source, "a ramp cluster needs 'shape: CxRxS'");
  cluster_keys().read(root, source, file);
  if (!root["gpu_memory"]) spec.gpu_memory = spec.device.memory_bytes;
  spec.device.memory_bytes = spec.gpu_memory;
  if (!root["intra_server_bandwidth"] && spec.gpus_per_server > 1)
    throw InputError(source, "a server with " + std::to_string(spec.gpus_per_server) +
                                 " GPUs needs 'intra_server_bandwidth' (bytes/s per GPU)");
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
  return cluster_keys().table();
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
