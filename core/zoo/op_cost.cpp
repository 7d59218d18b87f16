#include "core/zoo/op_cost.h"

#include <algorithm>

namespace pacml {
namespace {

// FlashAttention's backward: five matrix products per forward two (op_cost.h).
constexpr double kFlashBackwardFlops = 2.5;
constexpr double kFlashBackwardBytes = 2;
constexpr double kFlashBackwardKernels = 2;

}  // namespace

bool is_weighted_kind(OpKind kind) {
  return kind == OpKind::kConv || kind == OpKind::kLinear || kind == OpKind::kMatmul ||
         kind == OpKind::kLstm;
}

double op_time_ms(const OpWork& work, const DeviceModel& device, Precision precision) {
  const double compute_s = work.flops / (device.peak(precision) * device.efficiency_of(work.kind));
  const double memory_s = work.bytes / device.memory_bandwidth;
  return (std::max(compute_s, memory_s) + work.kernels * device.launch_overhead) * 1e3;
}

OpWork backward_work(const OpWork& forward) {
  OpWork backward = forward;
  if (forward.flash_attention) {
    backward.flops *= kFlashBackwardFlops;
    backward.bytes *= kFlashBackwardBytes;
    backward.kernels = kFlashBackwardKernels;
  } else if (is_weighted_kind(forward.kind)) {
    backward.flops *= 2;
    backward.bytes *= 2;
    backward.kernels *= 2;
  } else if (forward.kind == OpKind::kEmbedding) {
    backward.bytes += forward.weight_bytes;  // dense table gradient
    backward.kernels = 2;                    // zero the table, scatter-add
  }
  return backward;
}

}  // namespace pacml
