// `pacml topology` — describe a RAMP cluster: servers, channels, and which
// block shapes first fit can use for each action; with --slurm, write the
// cluster as Slurm's topology.conf (and --slurm-nodes: slurm.conf node lines)
// so that Slurm's topology/tree plugin agrees with pacml's RAMP groups.
// --host-attrs takes the node attributes (CPUs, sockets, cores, threads,
// memory, GPUs) from this machine with hwloc, as `pacml node describe` does.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cluster/ramp_topology.h"
#include "core/hw/hwloc_probe.h"
#include "core/hw/slurm_node.h"
#include "core/partition/split_counts.h"
#include "core/placement/block_shapes.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

std::string shape_text(const BlockShape& s) {
  if (s.diagonal) return "diag" + std::to_string(s.groups);
  return std::to_string(s.groups) + "x" + std::to_string(s.racks) + "x" + std::to_string(s.servers);
}

// "n" + [first-last] as a Slurm hostlist.
std::string node_range(const std::string& prefix, int first, int last) {
  if (first == last) return prefix + std::to_string(first);
  return prefix + "[" + std::to_string(first) + "-" + std::to_string(last) + "]";
}

// topology.conf: one leaf switch per rack (its S servers), one switch per
// communication group (its R racks), one top switch. Node k (1-based) is
// server k-1 = (c·R + r)·S + s, pacml's default node order.
void write_slurm_topology(const RampTopology& t, const std::string& prefix, std::ostream& out) {
  const int C = t.groups(), R = t.racks(), S = t.servers_per_rack();
  out << "# topology.conf for a RAMP " << t.shape() << " cluster (pacml topology --slurm).\n"
      << "# Node " << prefix << "K is RAMP server K-1 = (c*" << R << " + r)*" << S
      << " + s, the order pacml.conf assumes by default.\n";
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) {
      const int first = t.index(c, r, 0) + 1;
      out << "SwitchName=g" << c + 1 << "r" << r + 1
          << " Nodes=" << node_range(prefix, first, first + S - 1) << "\n";
    }
  for (int c = 0; c < C; ++c)
    out << "SwitchName=g" << c + 1 << " Switches=g" << c + 1 << "r[1-" << R << "]\n";
  out << "SwitchName=ramp Switches=g[1-" << C << "]\n";
}

void write_slurm_nodes(const RampTopology& t, const std::string& prefix, const std::string& attrs,
                       const std::string& partition, const std::string& origin, std::ostream& out) {
  const std::string all = node_range(prefix, 1, t.num_servers());
  out << "# slurm.conf lines for a RAMP " << t.shape()
      << " cluster (pacml topology --slurm-nodes); one GPU worker per server.\n";
  if (!origin.empty()) out << "# " << origin << "\n";
  out << "NodeName=" << all << (attrs.empty() ? "" : " " + attrs) << "\n"
      << "PartitionName=" << partition << " Nodes=" << all
      << " Default=YES MaxTime=INFINITE State=UP\n"
      << "TopologyPlugin=topology/tree\n"
      << "# pacml.conf:\n# topology: " << t.shape() << "\n# nodes: \"" << all
      << "\"\n# partitions: [" << partition << "]\n";
}

int topology_command(const std::vector<std::string>& argv) {
  Args args("pacml topology [--topology CxRxS] [--json | --slurm | --slurm-nodes]",
            "Describes a RAMP cluster of C communication groups x R racks x S servers: its size,\n"
            "channel bandwidth, and the candidate block shapes per action (doc/MODEL.md §4).\n"
            "--slurm prints the cluster as Slurm's topology.conf (a switch per rack, per group\n"
            "and one on top); --slurm-nodes prints the matching slurm.conf NodeName and\n"
            "PartitionName lines and the pacml.conf keys.");
  std::string shape = "4x4x2", prefix = "n", partition = "ramp";
  std::optional<std::string> node_attrs;
  bool json = false, slurm = false, slurm_nodes = false, host_attrs = false;
  args.bind("topology", "CxRxS", "RAMP shape", shape);
  args.bind_flag("json", "print one JSON object", json);
  args.bind_flag("slurm", "print topology.conf for Slurm's topology/tree plugin", slurm);
  args.bind_flag("slurm-nodes", "print slurm.conf NodeName/PartitionName lines", slurm_nodes);
  args.bind("node-prefix", "P", "Slurm node names are P1 … PN", prefix);
  const std::string default_attrs = "Gres=gpu:1 State=UNKNOWN";
  args.bind("node-attrs", "TEXT",
            "extra NodeName attributes (--slurm-nodes; with --host-attrs the default is "
            "State=UNKNOWN)",
            node_attrs, default_attrs);
  args.bind_flag("host-attrs",
                 "--slurm-nodes: each node's CPUs, sockets, cores, threads, memory and GPUs are "
                 "this machine's (hwloc, as `pacml node describe`)",
                 host_attrs);
  args.bind("partition", "NAME", "partition of the nodes (--slurm-nodes)", partition);
  if (!args.parse(argv)) return 0;
  const RampTopology t = RampTopology::parse(shape);
  if (prefix.empty() || prefix.find_first_of(" \t=[],") != std::string::npos)
    throw InputError("--node-prefix",
                     "must be a non-empty name without blanks, '=', ',' or brackets");
  if (slurm) {
    write_slurm_topology(t, prefix, std::cout);
    return 0;
  }
  if (slurm_nodes) {
    if (partition.empty() || partition.find_first_of(" \t=[],") != std::string::npos)
      throw InputError("--partition",
                       "must be a non-empty name without blanks, '=', ',' or brackets");
    std::string attrs = node_attrs.value_or(default_attrs), origin;
    if (host_attrs) {
      const hw::Machine machine = hw::probe_local_machine();
      const std::string extra = node_attrs.value_or("State=UNKNOWN");
      attrs = hw::slurm_node_attributes(machine) + (extra.empty() ? "" : " " + extra);
      origin = "node attributes of this machine (hwloc): `pacml node describe` prints " +
               hw::slurm_node_line(machine);
    }
    write_slurm_nodes(t, prefix, attrs, partition, origin, std::cout);
    return 0;
  }
  nlohmann::json actions = nlohmann::json::array();
  Table table({"action", "placeable", "candidate shapes (groups x racks x servers)"});
  for (int a = 1; a <= kMaxAction; a = a == 1 ? 2 : a + 2) {
    std::string shapes;
    nlohmann::json list = nlohmann::json::array();
    for (const BlockShape& s : candidate_shapes(a, t)) {
      shapes += (shapes.empty() ? "" : " ") + shape_text(s);
      list.push_back(shape_text(s));
    }
    const bool fits = has_block_shape(a, t);
    table.add({std::to_string(a), fits ? "yes" : "no", shapes});
    actions.push_back({{"action", a}, {"placeable", fits}, {"shapes", list}});
  }
  if (json) {
    std::cout << nlohmann::json({{"shape", t.shape()},
                                 {"servers", t.num_servers()},
                                 {"channel_bandwidth", t.channel_bandwidth()},
                                 {"worker_memory", t.params().worker_memory},
                                 {"actions", actions}})
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "RAMP " << t.shape() << ": " << t.num_servers() << " servers, channel bandwidth "
            << significant_number_text(t.channel_bandwidth()) << " B/s, worker memory "
            << significant_number_text(t.params().worker_memory) << " B\n";
  table.print(std::cout);
  return 0;
}

}  // namespace

PACML_COMMAND("topology", "describe a RAMP cluster and its placement shapes", topology_command);

}  // namespace pacml::cli
