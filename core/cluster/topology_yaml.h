// The one grammar of a RAMP topology written in YAML, shared by experiment
// files and pacml.conf (issue 18: one home per concept):
//
//   topology: 4x4x2
//   topology: {shape: 4x4x2, node_bandwidth: 1.6e12, worker_memory: 80e9}
//   topology: {groups: 4, racks: 4, servers_per_rack: 2, propagation_latency: 50e-9,
//              io_latency: 100e-9}
//
// Ranges are the cluster description's (cluster_spec.h): a value outside
// its plausible range is refused as a unit slip, naming file:line.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "core/cluster/ramp_topology.h"
#include "core/config/settings_table.h"

namespace pacml {

RampParams parse_ramp_topology(const YAML::Node& node, const std::string& source);

// The keys of the mapping form (`pacml config keys topology`).
const SettingsTable& ramp_topology_settings();

}  // namespace pacml
