// What a compute node has, as Slurm needs to know it: CPU layout, memory,
// GPUs and network adapters. Filled in by hwloc_probe.h; turned into
// slurm.conf / gres.conf lines by slurm_node.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pacml::hw {

// A PCI device with the OS devices (card0, renderD128, opencl0d0, eth0,
// mlx5_0, ...) the kernel made for it.
struct PciDevice {
  std::string bus_id;     // "0000:17:00.0"
  unsigned class_id = 0;  // 0x0302 = 3D controller, 0x0200 = Ethernet, 0x0207 = InfiniBand
  unsigned vendor_id = 0, device_id = 0;
  std::string vendor_name, device_name;  // from the PCI id database, may be empty
  std::vector<std::string> os_devices;
  // Logical indexes (Slurm's core numbering) of the cores nearest the device;
  // empty when the device is equally near every core.
  std::vector<int> local_cores;
};

struct Gpu {
  PciDevice pci;
  std::string device_file;  // the /dev file gres.conf names ("" if unknown)
};

struct Nic {
  PciDevice pci;
  std::string kind;                     // "ethernet", "infiniband", "network"
  std::vector<std::string> interfaces;  // eth0, ib0
  std::vector<std::string> fabrics;     // mlx5_0 (OpenFabrics/RDMA devices)
};

struct Machine {
  std::string hostname;  // as the machine reports it (may be fully qualified)
  int sockets = 0;       // hwloc packages (1 when the platform reports none)
  int cores = 0;         // physical cores, all sockets
  int threads = 0;       // hardware threads (hwloc PUs) = Slurm CPUs
  std::uint64_t memory_bytes = 0;
  std::vector<Gpu> gpus;  // PCI bus order
  std::vector<Nic> nics;  // PCI bus order

  int cores_per_socket() const { return sockets > 0 ? cores / sockets : 0; }
  int threads_per_core() const { return cores > 0 ? threads / cores : 0; }
  // Slurm's RealMemory: MiB, rounded down.
  std::uint64_t real_memory_mb() const { return memory_bytes >> 20; }
  // True when cores split evenly over sockets and threads over cores, which
  // Slurm's Sockets × CoresPerSocket × ThreadsPerCore form assumes.
  bool is_uniform() const;
};

// "gpu01.cluster.example" -> "gpu01" (Slurm's NodeName is the short name).
std::string short_hostname(const std::string& hostname);

}  // namespace pacml::hw
