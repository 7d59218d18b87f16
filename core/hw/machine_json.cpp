#include "core/hw/machine_json.h"

#include <cstdio>

#include "core/hw/slurm_node.h"

namespace pacml::hw {
namespace {

std::string hex4(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, "%04x", value & 0xffffu);
  return text;
}

nlohmann::json pci_json(const PciDevice& dev) {
  return {{"bus_id", dev.bus_id},
          {"class", hex4(dev.class_id)},
          {"vendor_id", hex4(dev.vendor_id)},
          {"device_id", hex4(dev.device_id)},
          {"vendor", dev.vendor_name},
          {"device", dev.device_name},
          {"os_devices", dev.os_devices},
          {"local_cores", dev.local_cores}};
}

}  // namespace

nlohmann::json machine_to_json(const Machine& m, const std::string& node_name) {
  nlohmann::json gpus = nlohmann::json::array(), nics = nlohmann::json::array();
  for (const Gpu& gpu : m.gpus) {
    nlohmann::json g = pci_json(gpu.pci);
    g["device_file"] = gpu.device_file;
    gpus.push_back(g);
  }
  for (const Nic& nic : m.nics) {
    nlohmann::json n = pci_json(nic.pci);
    n["kind"] = nic.kind;
    n["interfaces"] = nic.interfaces;
    n["fabrics"] = nic.fabrics;
    nics.push_back(n);
  }
  const std::string node_line = slurm_node_line(m, node_name);
  return {{"node_name", slurm_node_name(m, node_name)},
          {"hostname", m.hostname},
          {"cpus", m.threads},
          {"sockets", m.sockets},
          {"cores", m.cores},
          {"cores_per_socket", m.cores_per_socket()},
          {"threads_per_core", m.threads_per_core()},
          {"memory_bytes", m.memory_bytes},
          {"real_memory_mb", m.real_memory_mb()},
          {"gpus", gpus},
          {"nics", nics},
          {"slurm",
           {{"node_line", node_line},
            {"node_attributes", slurm_node_attributes(m)},
            {"gres_conf", gres_conf_lines(m, node_name)}}}};
}

}  // namespace pacml::hw
