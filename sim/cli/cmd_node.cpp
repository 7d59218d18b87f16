// `pacml node describe` — inspect this machine (or an lstopo XML export of
// another) with hwloc and print the Slurm lines that describe it: the
// slurm.conf NodeName= line and the gres.conf lines for its GPUs.
#include <iostream>
#include <map>

#include "core/hw/hwloc_probe.h"
#include "core/hw/machine_json.h"
#include "core/hw/slurm_node.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/cli/command.h"

namespace pacml::cli {
namespace {

int describe_command(const std::vector<std::string>& argv) {
  Args args("pacml node describe [--json] [--node-name NAME] [--xml FILE]",
            "Inspects this machine with hwloc (sockets, cores, threads, memory, and GPUs and\n"
            "network adapters among its PCI devices) and prints its slurm.conf NodeName= line\n"
            "and gres.conf lines, with comments listing the GPUs and NICs. --xml describes\n"
            "another machine from `lstopo --of xml FILE` run there.");
  std::string name;
  std::optional<std::string> xml;
  bool json = false;
  args.bind("node-name", "NAME", "NodeName to print (default: this host's short name)", name);
  args.bind("xml", "FILE", "read an hwloc XML export instead of this machine", xml);
  args.bind_flag("json", "print one JSON object", json);
  if (!args.parse(argv)) return 0;
  const hw::Machine machine = xml ? hw::probe_machine_xml(*xml) : hw::probe_local_machine();
  if (json) {
    std::cout << hw::machine_to_json(machine, name).dump(2) << "\n";
    return 0;
  }
  std::cout << "# slurm.conf\n" << hw::slurm_node_line(machine, name) << "\n";
  const std::vector<std::string> gres = hw::gres_conf_lines(machine, name);
  if (!gres.empty()) {
    std::cout << "\n# gres.conf\n";
    for (const std::string& line : gres) std::cout << line << "\n";
  }
  const std::vector<std::string> notes = hw::machine_notes(machine);
  if (!notes.empty()) std::cout << "\n";
  for (const std::string& line : notes) std::cout << line << "\n";
  return 0;
}

int node_command(const std::vector<std::string>& argv) {
  static const VerbTable verbs = {
      {"describe", {describe_command, "this machine's slurm.conf NodeName= and gres.conf lines"}},
  };
  return run_verb("node", "This machine, described for Slurm (hwloc).", verbs, argv);
}

}  // namespace

PACML_COMMAND("node", "describe this machine for Slurm (hwloc): NodeName= and gres.conf lines",
              node_command);

}  // namespace pacml::cli
