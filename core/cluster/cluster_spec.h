// The one description of a GPU cluster (doc/PHYSICAL.md §2): how many
// servers, how they are networked, how many GPUs each holds, how those GPUs
// are joined inside the server, and which GPU it is.
//
// Experiments, pacml.conf and the command line (`--cluster FILE|NAME`) all read
// it through load_cluster_spec(); `--topology CxRxS` is shorthand for the
// paper's RAMP cluster of that shape (one A100 per server). File format
// (every key but `network` optional; unknown keys are errors):
//
// The keys, their ranges and defaults are declared once, in
// cluster_settings() (`pacml config keys cluster` prints them).
//
//   pacml_cluster: 1                   # format version
//   name: dgx-a100-16x8
//   network: fabric                    # fabric | ramp
//   servers: 16                        # fabric: how many servers
//   shape: 4x4x2                       # ramp: C x R x S (instead of servers)
//   gpus_per_server: 8                 # G
//   device: a100                       # built-in name or a device file (core/zoo)
//   gpu_memory: 80e9                   # bytes per GPU (default: the device's)
//   server_bandwidth: 200e9            # bytes/s one server injects into the network
//   network_latency: 5e-6              # fabric: seconds per message across servers
//   intra_server_bandwidth: 300e9      # bytes/s per GPU inside a server (NVLink)
//   intra_server_latency: 2e-6         # seconds per message inside a server
//   propagation_latency: 50e-9         # ramp only (the paper's parameters)
//   io_latency: 100e-9                 # ramp only
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "core/cluster/ramp_topology.h"
#include "core/config/settings_table.h"
#include "core/zoo/device_model.h"

namespace pacml {

enum class NetworkKind {
  kRamp,    // the paper's optical network: C groups x R racks x S servers
  kFabric,  // a conventional non-blocking fabric (InfiniBand, RoCE)
};

const char* network_kind_name(NetworkKind kind);

// The keys of a cluster file: what load_cluster_spec reads and the docs show.
const SettingsTable& cluster_settings();

struct ClusterSpec {
  std::string name;
  NetworkKind network = NetworkKind::kRamp;
  // RAMP shape and the paper's per-transfer latencies. For a fabric only
  // the server count is meaningful (kept in ramp.groups × racks × S = 1×1×n).
  RampParams ramp;
  int gpus_per_server = 1;
  DeviceModel device = DeviceModel::a100();
  double gpu_memory = 80e9;            // bytes per GPU
  double server_bandwidth = 1.6e12;    // bytes/s out of one server
  double network_latency = 150e-9;     // seconds per message between servers
  double intra_server_bandwidth = 0;   // bytes/s per GPU inside a server (G > 1)
  double intra_server_latency = 2e-6;  // seconds per message inside a server

  int num_servers() const { return ramp.groups * ramp.racks * ramp.servers_per_rack; }
  int num_gpus() const { return num_servers() * gpus_per_server; }
  // The RAMP topology the paper's placement works on (a fabric: 1×1×n).
  RampTopology topology() const;
  // "fabric 16 servers x 8 GPUs (A100-SXM4-80GB)", for people.
  std::string summary() const;

  // The paper's cluster of `shape` (4x4x2 by default): RAMP, one A100 per
  // server, doc/MODEL.md §2 parameters. `--topology CxRxS` means this.
  static ClusterSpec paper(const RampTopology& topology);
};

// Parses a cluster file. `base_dir` resolves a relative device file path.
// Every error names "source:line": unknown keys, missing `network`, a key of
// the other network kind, values outside their plausible range (a unit slip),
// a device that is neither built in nor a readable file.
ClusterSpec load_cluster_spec(std::istream& in, const std::string& source,
                              const std::string& base_dir = ".");

// `arg` is a file path, or the name of a built-in preset (the files of
// contrib/clusters/ are compiled in, so a preset works without the tree).
ClusterSpec load_cluster(const std::string& arg, const std::string& where = "--cluster");

// The preset names, and the YAML text of one (tests keep the files in step).
std::vector<std::string> cluster_preset_names();
const char* cluster_preset_text(const std::string& name);

// A device by built-in name ("a100", "v100") or device file path.
DeviceModel load_device(const std::string& name_or_path, const std::string& where);

}  // namespace pacml
