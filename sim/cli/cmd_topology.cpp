// `pacml topology` — describe a RAMP cluster: servers, channels, and which
// block shapes first fit can use for each action.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cluster/ramp_topology.h"
#include "core/partition/split_counts.h"
#include "core/placement/block_shapes.h"
#include "sim/cli/args.h"
#include "sim/cli/command.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

std::string shape_text(const BlockShape& s) {
  if (s.diagonal) return "diag" + std::to_string(s.groups);
  return std::to_string(s.groups) + "x" + std::to_string(s.racks) + "x" + std::to_string(s.servers);
}

int topology_command(const std::vector<std::string>& argv) {
  Args args("pacml topology [--topology CxRxS] [--json]",
            "Describes a RAMP cluster of C communication groups x R racks x S servers: its size,\n"
            "channel bandwidth, and the candidate block shapes for every action (MODEL.md §4).");
  args.option("topology", "CxRxS", "RAMP shape", "4x4x2");
  args.flag("json", "print one JSON object");
  if (!args.parse(argv)) return 0;
  const RampTopology t = RampTopology::parse(args.get("topology"));
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
  if (args.is_set("json")) {
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
            << format_number(t.channel_bandwidth()) << " B/s, worker memory "
            << format_number(t.params().worker_memory) << " B\n";
  table.print(std::cout);
  return 0;
}

}  // namespace

PACML_COMMAND("topology", "describe a RAMP cluster and its placement shapes", topology_command);

}  // namespace pacml::cli
