#include "core/cluster/topology_yaml.h"

#include "core/cluster/plausible.h"
#include "core/config/bound_settings.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

using T = SettingType;

// C, R or S alone, instead of `shape`: its default is the shape's.
BoundSettings<RampParams>::Binding dimension(const char* name, int RampParams::*member,
                                             const char* meaning, const RampParams& d) {
  return no_default(bind(SettingKey(name, T::kInteger, meaning).range(1, 1024), member, d));
}

BoundSettings<RampParams>::Binding plausible(const char* name, double RampParams::*member,
                                             const PlausibleRange& range, const char* meaning,
                                             const RampParams& d) {
  return bind(SettingKey(name, T::kNumber, meaning).range(range.min, range.max, range.unit), member,
              d);
}

// The keys in the order they are read: `shape` before the dimensions that
// override it.
const BoundSettings<RampParams>& topology_keys() {
  static const RampParams d;
  static const BoundSettings<RampParams> keys(
      "topology key",
      {bind_with<RampParams>(
           SettingKey("shape", T::kText, "C groups x R racks x S servers per rack")
               .defaults_to(RampTopology(d).shape()),
           [](const SettingsTable& keys, const YAML::Node& node, const std::string& source,
              RampParams& p) {
             const RampParams shape = RampTopology::parse(keys.text(node, source, "shape"),
                                                          yaml_where(source, node["shape"]))
                                          .params();
             p.groups = shape.groups, p.racks = shape.racks,
             p.servers_per_rack = shape.servers_per_rack;
           }),
       dimension("groups", &RampParams::groups, "C: communication groups (instead of shape)", d),
       dimension("racks", &RampParams::racks, "R: racks per group, R <= C (instead of shape)", d),
       dimension("servers_per_rack", &RampParams::servers_per_rack,
                 "S: servers per rack (instead of shape)", d),
       plausible("node_bandwidth", &RampParams::node_bandwidth, kPlausibleBandwidth,
                 "out of one server, over C channels", d),
       plausible("propagation_latency", &RampParams::propagation_latency, kPlausibleLatency,
                 "per transfer", d),
       plausible("io_latency", &RampParams::io_latency, kPlausibleLatency,
                 "worker I/O, paid twice per transfer", d),
       plausible("worker_memory", &RampParams::worker_memory, kPlausibleMemory, "per GPU", d)});
  return keys;
}

}  // namespace

const SettingsTable& ramp_topology_settings() {
  return topology_keys().table();
}

RampParams parse_ramp_topology(const YAML::Node& node, const std::string& source) {
  const std::string where = yaml_where(source, node);
  if (node.IsScalar()) return RampTopology::parse(node.Scalar(), where).params();
  if (!node.IsMap()) throw InputError(where, "topology must be CxRxS or a mapping");
  topology_keys().table().check_known(node, source);
  RampParams p;
  topology_keys().read(node, source, p);
  RampTopology check(p, where);  // R <= C, sizes
  return p;
}

}  // namespace pacml
