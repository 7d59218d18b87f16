// Which PCI devices are GPUs and which are network adapters, and the device
// file a GPU gets in gres.conf. Pure functions of PCI ids and OS device names,
// so they are testable without the hardware.
//
// GPUs: a 3D controller (class 0x0302, e.g. NVIDIA data-centre GPUs), a
// display controller (0x0300 VGA / 0x0380 other) from NVIDIA or AMD, or any
// device with a compute co-processor OS device (CUDA, OpenCL, ROCm SMI).
// The VGA chips that server BMCs and virtual machines carry (ASPEED, Matrox,
// QEMU's, ...) are not GPUs.
#pragma once

#include <string>
#include <vector>

namespace pacml::hw {

constexpr unsigned kVendorNvidia = 0x10de;
constexpr unsigned kVendorAmd = 0x1002;

bool is_gpu(unsigned class_id, unsigned vendor_id, bool has_coprocessor);

// "ethernet" (0x0200), "infiniband" (0x0207), "network" (other 0x02xx), or
// "" when the class is not a network controller.
std::string nic_kind(unsigned class_id);

// The device file Slurm's gres.conf File= needs for a GPU: NVIDIA's
// /dev/nvidiaN, where N is the GPU's rank among the NVIDIA GPUs in PCI bus
// order (the driver's default numbering); for other vendors the DRM render
// node (/dev/dri/renderD128) from the GPU's OS devices, else its DRM card
// (/dev/dri/card1). "" when unknown.
std::string gpu_device_file(unsigned vendor_id, int nvidia_rank,
                            const std::vector<std::string>& os_devices);

// "0-3,8,10-11" for sorted, distinct indexes (Slurm's range syntax).
std::string index_ranges(const std::vector<int>& indexes);

}  // namespace pacml::hw
