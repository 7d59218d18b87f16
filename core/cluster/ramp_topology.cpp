#include "core/cluster/ramp_topology.h"

#include <cmath>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {
namespace {

constexpr int kMaxDimension = 1024;
constexpr long kMaxServers = 1 << 20;

void require_positive(double value, const std::string& where, const char* name) {
  if (!std::isfinite(value) || value <= 0)
    throw InputError(where, std::string(name) + " must be a positive number");
}

void require_non_negative(double value, const std::string& where, const char* name) {
  if (!std::isfinite(value) || value < 0)
    throw InputError(where, std::string(name) + " must be a non-negative number");
}

}  // namespace

RampTopology::RampTopology(const RampParams& params, const std::string& where) : p_(params) {
  for (auto [value, name] : {std::pair{p_.groups, "communication groups (C)"},
                             std::pair{p_.racks, "racks per group (R)"},
                             std::pair{p_.servers_per_rack, "servers per rack (S)"}}) {
    if (value < 1 || value > kMaxDimension)
      throw InputError(where, std::string(name) + " must be between 1 and " +
                                  std::to_string(kMaxDimension) + ", got " + std::to_string(value));
  }
  if (p_.racks > p_.groups)
    throw InputError(where, "RAMP needs racks per group (R=" + std::to_string(p_.racks) +
                                ") <= communication groups (C=" + std::to_string(p_.groups) + ")");
  if (static_cast<long>(p_.groups) * p_.racks * p_.servers_per_rack > kMaxServers)
    throw InputError(where, "too many servers");
  require_positive(p_.node_bandwidth, where, "node bandwidth");
  require_non_negative(p_.propagation_latency, where, "propagation latency");
  require_non_negative(p_.io_latency, where, "I/O latency");
  require_positive(p_.worker_memory, where, "worker memory");
}

RampTopology RampTopology::parse(const std::string& shape, const std::string& where) {
  RampParams params;
  int* dims[3] = {&params.groups, &params.racks, &params.servers_per_rack};
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    size_t x = shape.find('x', start);
    if ((i < 2) != (x != std::string::npos))
      throw InputError(where, "topology must look like CxRxS (e.g. 4x4x2), got '" + shape + "'");
    std::string part = shape.substr(start, i < 2 ? x - start : std::string::npos);
    *dims[i] = static_cast<int>(parse_integer(part, 1, kMaxDimension, where, "topology dimension"));
    start = x + 1;
  }
  return RampTopology(params, where);
}

ServerCoord RampTopology::coord(int server) const {
  ServerCoord c;
  c.s = server % p_.servers_per_rack;
  c.r = (server / p_.servers_per_rack) % p_.racks;
  c.c = server / (p_.servers_per_rack * p_.racks);
  return c;
}

std::string RampTopology::shape() const {
  return std::to_string(p_.groups) + "x" + std::to_string(p_.racks) + "x" +
         std::to_string(p_.servers_per_rack);
}

}  // namespace pacml
