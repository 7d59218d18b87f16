// The Slurm configuration lines that describe a machine: its slurm.conf
// NodeName= line and its gres.conf lines (the form `slurmd -C` prints, plus
// the GPUs, which slurmd -C leaves out).
//
//   NodeName=gpu01 CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 Gres=gpu:2
//   NodeName=gpu01 Name=gpu File=/dev/nvidia0 Cores=0-1
#pragma once

#include <string>
#include <vector>

#include "core/hw/machine.h"

namespace pacml::hw {

// The NodeName to use: `node_name` if given, else the machine's short host
// name ("localhost" if it has none).
std::string slurm_node_name(const Machine& machine, const std::string& node_name = "");

// The node attributes of the slurm.conf line, without NodeName=:
// "CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 Gres=gpu:2"
// (for `pacml topology --slurm-nodes`, which names the nodes itself).
std::string slurm_node_attributes(const Machine& machine);

// The slurm.conf line. `node_name` "" = the machine's short host name.
std::string slurm_node_line(const Machine& machine, const std::string& node_name = "");

// One gres.conf line per GPU (none without GPUs). A GPU whose device file is
// unknown gets a comment line saying so instead, since Slurm needs File=.
std::vector<std::string> gres_conf_lines(const Machine& machine, const std::string& node_name = "");

// Comment lines a person may want next to the configuration: GPUs and NICs
// with their PCI addresses, and any layout Slurm's form cannot express.
std::vector<std::string> machine_notes(const Machine& machine);

}  // namespace pacml::hw
