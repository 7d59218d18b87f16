#include "core/hw/slurm_node.h"

#include <cstdio>

#include "core/hw/pci_classes.h"

namespace pacml::hw {
namespace {

std::string pci_summary(const PciDevice& dev) {
  char ids[32];
  std::snprintf(ids, sizeof ids, "[%04x:%04x]", dev.vendor_id, dev.device_id);
  std::string text = dev.bus_id + " " + ids;
  if (!dev.vendor_name.empty()) text += " " + dev.vendor_name;
  if (!dev.device_name.empty()) text += " " + dev.device_name;
  return text;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

std::string slurm_node_name(const Machine& machine, const std::string& node_name) {
  if (!node_name.empty()) return node_name;
  const std::string name = short_hostname(machine.hostname);
  return name.empty() ? "localhost" : name;
}

std::string slurm_node_attributes(const Machine& m) {
  std::string attrs = "CPUs=" + std::to_string(m.threads);
  if (m.is_uniform())
    attrs += " Sockets=" + std::to_string(m.sockets) +
             " CoresPerSocket=" + std::to_string(m.cores_per_socket()) +
             " ThreadsPerCore=" + std::to_string(m.threads_per_core());
  attrs += " RealMemory=" + std::to_string(m.real_memory_mb());
  if (!m.gpus.empty()) attrs += " Gres=gpu:" + std::to_string(m.gpus.size());
  return attrs;
}

std::string slurm_node_line(const Machine& m, const std::string& node_name) {
  return "NodeName=" + slurm_node_name(m, node_name) + " " + slurm_node_attributes(m);
}

std::vector<std::string> gres_conf_lines(const Machine& m, const std::string& node_name) {
  std::vector<std::string> lines;
  const std::string name = slurm_node_name(m, node_name);
  for (const Gpu& gpu : m.gpus) {
    if (gpu.device_file.empty()) {
      lines.push_back("# NodeName=" + name + " Name=gpu: no device file known for " +
                      pci_summary(gpu.pci));
      continue;
    }
    std::string line = "NodeName=" + name + " Name=gpu File=" + gpu.device_file;
    if (!gpu.pci.local_cores.empty()) line += " Cores=" + index_ranges(gpu.pci.local_cores);
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> machine_notes(const Machine& m) {
  std::vector<std::string> notes;
  if (!m.is_uniform())
    notes.push_back("# " + std::to_string(m.cores) + " cores over " + std::to_string(m.sockets) +
                    " sockets and " + std::to_string(m.threads) +
                    " threads do not divide evenly: Sockets/CoresPerSocket/ThreadsPerCore "
                    "left out, set them by hand");
  for (const Gpu& gpu : m.gpus) {
    std::string note = "# gpu " + pci_summary(gpu.pci);
    if (!gpu.pci.os_devices.empty()) note += " (" + join(gpu.pci.os_devices) + ")";
    notes.push_back(note);
  }
  for (const Nic& nic : m.nics) {
    std::string note = "# nic " + nic.kind + " " + pci_summary(nic.pci);
    std::vector<std::string> names = nic.interfaces;
    names.insert(names.end(), nic.fabrics.begin(), nic.fabrics.end());
    if (!names.empty()) note += " (" + join(names) + ")";
    if (!nic.pci.local_cores.empty()) note += " near cores " + index_ranges(nic.pci.local_cores);
    notes.push_back(note);
  }
  return notes;
}

}  // namespace pacml::hw
