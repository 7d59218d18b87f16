#include "core/hw/pci_classes.h"

namespace pacml::hw {

bool is_gpu(unsigned class_id, unsigned vendor_id, bool has_coprocessor) {
  if (has_coprocessor || class_id == 0x0302) return true;
  const bool display = class_id == 0x0300 || class_id == 0x0380;
  return display && (vendor_id == kVendorNvidia || vendor_id == kVendorAmd);
}

std::string nic_kind(unsigned class_id) {
  if (class_id == 0x0200) return "ethernet";
  if (class_id == 0x0207) return "infiniband";
  if ((class_id >> 8) == 0x02) return "network";
  return "";
}

std::string gpu_device_file(unsigned vendor_id, int nvidia_rank,
                            const std::vector<std::string>& os_devices) {
  if (vendor_id == kVendorNvidia && nvidia_rank >= 0)
    return "/dev/nvidia" + std::to_string(nvidia_rank);
  for (const std::string& name : os_devices)
    if (name.rfind("renderD", 0) == 0) return "/dev/dri/" + name;
  for (const std::string& name : os_devices)
    if (name.rfind("card", 0) == 0) return "/dev/dri/" + name;
  return "";
}

std::string index_ranges(const std::vector<int>& indexes) {
  std::string out;
  for (size_t i = 0; i < indexes.size();) {
    size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(indexes[i]);
    if (j > i) out += "-" + std::to_string(indexes[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace pacml::hw
