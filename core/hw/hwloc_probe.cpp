#include "core/hw/hwloc_probe.h"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/hw/pci_classes.h"
#include "core/util/error.h"

namespace pacml::hw {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::string info(hwloc_obj_t obj, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(obj, name);
  return value ? value : "";
}

std::string bus_id(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& pci) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%01x", static_cast<unsigned>(pci.domain),
                static_cast<unsigned>(pci.bus), static_cast<unsigned>(pci.dev),
                static_cast<unsigned>(pci.func));
  return text;
}

// Cores whose threads share the device's nearest CPU set; empty when that is
// the whole machine (the device is equally near every core).
std::vector<int> local_cores(hwloc_topology_t t, hwloc_obj_t device) {
  hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, device);
  hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t);
  std::vector<int> cores;
  if (!near || !near->cpuset || hwloc_bitmap_isequal(near->cpuset, all)) return cores;
  hwloc_obj_t core = nullptr;
  while ((core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, core)))
    if (core->cpuset && hwloc_bitmap_intersects(core->cpuset, near->cpuset))
      cores.push_back(static_cast<int>(core->logical_index));
  return cores;
}

Machine describe(hwloc_topology_t t) {
  Machine m;
  hwloc_obj_t root = hwloc_get_root_obj(t);
  m.hostname = info(root, "HostName");
  m.threads = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  m.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  m.sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  if (m.cores <= 0) m.cores = m.threads;  // some platforms report PUs only
  if (m.sockets <= 0) m.sockets = 1;
  m.memory_bytes = root->total_memory;

  hwloc_obj_t pci = nullptr;
  while ((pci = hwloc_get_next_pcidev(t, pci))) {
    PciDevice dev;
    dev.bus_id = bus_id(pci->attr->pcidev);
    dev.class_id = pci->attr->pcidev.class_id;
    dev.vendor_id = pci->attr->pcidev.vendor_id;
    dev.device_id = pci->attr->pcidev.device_id;
    dev.vendor_name = info(pci, "PCIVendor");
    dev.device_name = info(pci, "PCIDevice");
    bool coprocessor = false;
    std::vector<std::string> interfaces, fabrics;
    for (hwloc_obj_t child = pci->io_first_child; child; child = child->next_sibling) {
      if (child->type != HWLOC_OBJ_OS_DEVICE || !child->name) continue;
      dev.os_devices.push_back(child->name);
      switch (child->attr->osdev.type) {
        case HWLOC_OBJ_OSDEV_COPROC:
          coprocessor = true;
          break;
        case HWLOC_OBJ_OSDEV_NETWORK:
          interfaces.push_back(child->name);
          break;
        case HWLOC_OBJ_OSDEV_OPENFABRICS:
          fabrics.push_back(child->name);
          break;
        default:
          break;
      }
    }
    if (is_gpu(dev.class_id, dev.vendor_id, coprocessor)) {
      dev.local_cores = local_cores(t, pci);
      Gpu gpu;
      gpu.pci = std::move(dev);
      m.gpus.push_back(std::move(gpu));
    } else if (const std::string kind = nic_kind(dev.class_id); !kind.empty()) {
      dev.local_cores = local_cores(t, pci);
      Nic nic;
      nic.kind = kind;
      nic.interfaces = std::move(interfaces);
      nic.fabrics = std::move(fabrics);
      nic.pci = std::move(dev);
      m.nics.push_back(std::move(nic));
    }
  }
  // hwloc lists PCI devices in tree order (by locality); Slurm and the NVIDIA
  // driver number GPUs in bus order.
  auto by_bus = [](const auto& a, const auto& b) { return a.pci.bus_id < b.pci.bus_id; };
  std::stable_sort(m.gpus.begin(), m.gpus.end(), by_bus);
  std::stable_sort(m.nics.begin(), m.nics.end(), by_bus);
  int nvidia_rank = 0;
  for (Gpu& gpu : m.gpus) {
    const int rank = gpu.pci.vendor_id == kVendorNvidia ? nvidia_rank++ : -1;
    gpu.device_file = gpu_device_file(gpu.pci.vendor_id, rank, gpu.pci.os_devices);
  }
  return m;
}

// Loads a topology; `configure` may point hwloc at an XML file first.
template <typename Configure>
Machine load(const std::string& where, Configure configure) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0)
    throw InputError(where, std::string("hwloc_topology_init failed: ") + std::strerror(errno));
  Topology topology(raw);
  // Without this hwloc reports no PCI or OS devices at all (its default I/O filter drops them).
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  configure(raw);
  if (hwloc_topology_load(raw) != 0)
    throw InputError(where,
                     std::string("hwloc could not load the topology: ") + std::strerror(errno));
  return describe(raw);
}

}  // namespace

Machine probe_local_machine() {
  Machine m = load("hwloc", [](hwloc_topology_t) {});
  // slurmd checks RealMemory against sysconf(_SC_PHYS_PAGES), the kernel's
  // MemTotal. hwloc adds up the NUMA nodes' own counts, which can be less
  // (on VMs with hot-plugged memory, e.g. 10 GB of a 24 GB machine).
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0)
    m.memory_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  return m;
}

Machine probe_machine_xml(const std::string& path) {
  return load(path, [&](hwloc_topology_t t) {
    if (hwloc_topology_set_xml(t, path.c_str()) != 0)
      throw InputError(path, std::string("not a readable hwloc XML file: ") + std::strerror(errno));
  });
}

}  // namespace pacml::hw
