#include "core/cluster/topology_yaml.h"

#include "core/cluster/plausible.h"

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

constexpr long kMaxDimension = 1024;

int dimension(const YAML::Node& node, const std::string& source, const std::string& key) {
  return static_cast<int>(yaml_integer(node, source, "topology." + key, 1, kMaxDimension));
}

double number(const YAML::Node& node, const std::string& source, const std::string& key,
              const PlausibleRange& range) {
  return yaml_plausible(node, source, "topology." + key, range);
}

}  // namespace

RampParams parse_ramp_topology(const YAML::Node& node, const std::string& source) {
  const std::string where = yaml_where(source, node);
  if (node.IsScalar()) return RampTopology::parse(node.Scalar(), where).params();
  if (!node.IsMap()) throw InputError(where, "topology must be CxRxS or a mapping");
  RampParams p;
  for (const auto& kv : node) {
    const std::string key = yaml_scalar(kv.first, source, "a topology key");
    const YAML::Node& v = kv.second;
    if (key == "shape") {
      const RampParams shape =
          RampTopology::parse(yaml_scalar(v, source, "topology.shape"), yaml_where(source, v))
              .params();
      p.groups = shape.groups, p.racks = shape.racks, p.servers_per_rack = shape.servers_per_rack;
    } else if (key == "groups") {
      p.groups = dimension(v, source, key);
    } else if (key == "racks") {
      p.racks = dimension(v, source, key);
    } else if (key == "servers_per_rack") {
      p.servers_per_rack = dimension(v, source, key);
    } else if (key == "node_bandwidth") {
      p.node_bandwidth = number(v, source, key, kPlausibleBandwidth);
    } else if (key == "propagation_latency") {
      p.propagation_latency = number(v, source, key, kPlausibleLatency);
    } else if (key == "io_latency") {
      p.io_latency = number(v, source, key, kPlausibleLatency);
    } else if (key == "worker_memory") {
      p.worker_memory = number(v, source, key, kPlausibleMemory);
    } else {
      throw InputError(yaml_where(source, kv.first),
                       "unknown topology key '" + key +
                           "' (known: shape, groups, racks, servers_per_rack, node_bandwidth, "
                           "propagation_latency, io_latency, worker_memory)");
    }
  }
  RampTopology check(p, where);  // R <= C, sizes
  return p;
}

}  // namespace pacml
