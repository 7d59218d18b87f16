// The few global constants of the physical model (doc/PHYSICAL.md §6), fitted
// once against the measurements of doc/PHYSICAL.md §7 and then fixed. None is
// per model or per measurement: a model the calibration never saw gets the
// same numbers. The host's cost is not among them: it is the device's
// (DeviceModel::host, doc/PHYSICAL.md §9), copied in by the estimator.
#pragma once

#include <array>

#include "core/parallel/parallel_job.h"
#include "core/zoo/device_model.h"

namespace pacml {

struct PhysicalConstants {
  // Host time the framework spends issuing one op of one pass (forward or
  // backward): Python, autograd, the dispatcher and the kernel launch. The
  // host runs ahead of the GPU, so it only costs time when the GPU's work per
  // op is shorter: this is what flattens small-batch curves. By ModelFamily.
  // Host time per step outside the ops: the data loader hand-off, zero_grad,
  // the loss's device-to-host copy that synchronises each step.
  // Both are the cluster device's HostCost (with_host_of); calibrated()
  // leaves them 0.
  std::array<double, kNumHostFamilies> host_per_op{};
  double host_per_step = 0;
  // Fraction of the link bandwidth NCCL's ring reaches (its "bus bandwidth"),
  // inside a server (NVLink/NVSwitch) and between servers.
  double bus_efficiency_intra = 0;
  double bus_efficiency_inter = 0;
  // Fixed cost of one collective call (NCCL launch, proxy, synchronisation).
  double collective_overhead = 0;
  // DDP's gradient bucket (PyTorch default 25 MB).
  double bucket_bytes = 25e6;
  // GPU memory no job can use: CUDA context, NCCL buffers, fragmentation.
  double reserved_memory = 0;
  // While NCCL runs it occupies SMs and memory bandwidth: compute that
  // overlaps communication runs this much slower.
  double overlap_slowdown = 0;

  double host_time_per_op(ModelFamily family) const {
    return host_per_op[static_cast<int>(family)];
  }

  // The fitted values (the host's cost left 0: it comes from the device).
  static PhysicalConstants calibrated();
};

// `constants` with the host's cost of `device` (DeviceModel::host), as the
// estimator runs them on that device.
PhysicalConstants with_host_of(PhysicalConstants constants, const DeviceModel& device);

}  // namespace pacml
