#include "core/cluster/topology_yaml.h"

#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

struct Range {
  double min, max;
  const char* unit;
};
// The same plausible ranges as a cluster file (cluster_spec.cpp).
constexpr Range kBandwidth{1e8, 1e15, "bytes/s"};
constexpr Range kLatency{0, 1e-2, "seconds"};
constexpr Range kMemory{1e8, 1e13, "bytes"};
constexpr long kMaxDimension = 1024;

std::string text(const YAML::Node& node, const std::string& where, const std::string& key) {
  if (!node.IsScalar()) throw InputError(where, "topology." + key + " must be a single value");
  return node.Scalar();
}

double number(const YAML::Node& node, const std::string& where, const std::string& key,
              const Range& range) {
  const double v = parse_finite_double(text(node, where, key), where, "topology." + key);
  if (v < range.min || v > range.max) {
    std::ostringstream message;
    message << "topology." << key << " = " << v << " is outside [" << range.min << ", " << range.max
            << "] " << range.unit << " (a unit slip?)";
    throw InputError(where, message.str());
  }
  return v;
}

int dimension(const YAML::Node& node, const std::string& where, const std::string& key) {
  return static_cast<int>(
      parse_integer(text(node, where, key), 1, kMaxDimension, where, "topology." + key));
}

}  // namespace

RampParams parse_ramp_topology(const YAML::Node& node, const std::string& source) {
  const std::string where = yaml_where(source, node);
  if (node.IsScalar()) return RampTopology::parse(node.Scalar(), where).params();
  if (!node.IsMap()) throw InputError(where, "topology must be CxRxS or a mapping");
  RampParams p;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar(), w = yaml_where(source, kv.second);
    const YAML::Node& v = kv.second;
    if (key == "shape") {
      const RampParams shape = RampTopology::parse(text(v, w, key), w).params();
      p.groups = shape.groups, p.racks = shape.racks, p.servers_per_rack = shape.servers_per_rack;
    } else if (key == "groups") {
      p.groups = dimension(v, w, key);
    } else if (key == "racks") {
      p.racks = dimension(v, w, key);
    } else if (key == "servers_per_rack") {
      p.servers_per_rack = dimension(v, w, key);
    } else if (key == "node_bandwidth") {
      p.node_bandwidth = number(v, w, key, kBandwidth);
    } else if (key == "propagation_latency") {
      p.propagation_latency = number(v, w, key, kLatency);
    } else if (key == "io_latency") {
      p.io_latency = number(v, w, key, kLatency);
    } else if (key == "worker_memory") {
      p.worker_memory = number(v, w, key, kMemory);
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
