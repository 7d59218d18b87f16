#include "core/cluster/topology_yaml.h"

#include "core/cluster/plausible.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

SettingKey dimension(const char* name, const char* meaning) {
  return SettingKey(name, SettingType::kInteger, meaning).range(1, 1024);
}

SettingKey plausible(const char* name, const PlausibleRange& range, const char* meaning,
                     const char* default_text) {
  return SettingKey(name, SettingType::kNumber, meaning)
      .range(range.min, range.max, range.unit)
      .defaults_to(default_text);
}

}  // namespace

const SettingsTable& ramp_topology_settings() {
  static const SettingsTable table(
      "topology key",
      {SettingKey("shape", SettingType::kText, "C groups x R racks x S servers per rack")
           .defaults_to("4x4x2"),
       dimension("groups", "C: communication groups (instead of shape)"),
       dimension("racks", "R: racks per group, R <= C (instead of shape)"),
       dimension("servers_per_rack", "S: servers per rack (instead of shape)"),
       plausible("node_bandwidth", kPlausibleBandwidth, "out of one server, over C channels",
                 "1.6e12"),
       plausible("propagation_latency", kPlausibleLatency, "per transfer", "50e-9"),
       plausible("io_latency", kPlausibleLatency, "worker I/O, paid twice per transfer", "100e-9"),
       plausible("worker_memory", kPlausibleMemory, "per GPU", "80e9")});
  return table;
}

RampParams parse_ramp_topology(const YAML::Node& node, const std::string& source) {
  const std::string where = yaml_where(source, node);
  if (node.IsScalar()) return RampTopology::parse(node.Scalar(), where).params();
  if (!node.IsMap()) throw InputError(where, "topology must be CxRxS or a mapping");
  const SettingsTable& keys = ramp_topology_settings();
  keys.check_known(node, source);
  RampParams p;
  if (node["shape"]) {
    const RampParams shape =
        RampTopology::parse(keys.text(node, source, "shape"), yaml_where(source, node["shape"]))
            .params();
    p.groups = shape.groups, p.racks = shape.racks, p.servers_per_rack = shape.servers_per_rack;
  }
  auto dimension_at = [&](const char* key, int& out) {
    if (node[key]) out = static_cast<int>(keys.integer(node, source, key));
  };
  auto number_at = [&](const char* key, double& out) {
    if (node[key]) out = keys.number(node, source, key);
  };
  dimension_at("groups", p.groups);
  dimension_at("racks", p.racks);
  dimension_at("servers_per_rack", p.servers_per_rack);
  number_at("node_bandwidth", p.node_bandwidth);
  number_at("propagation_latency", p.propagation_latency);
  number_at("io_latency", p.io_latency);
  number_at("worker_memory", p.worker_memory);
  RampTopology check(p, where);  // R <= C, sizes
  return p;
}

}  // namespace pacml
