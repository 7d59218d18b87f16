// The analytic cost model: how long one op takes on a device model.
//
// Forward time of an op (milliseconds):
//
//   max(flops / (peak_flops[precision] * efficiency[kind]),  bytes / memory_bandwidth)
//     + kernels * launch_overhead
//
// i.e. a roofline (the op is bound by arithmetic or by memory traffic,
// whichever is slower) plus the fixed cost of launching its kernels. FLOPs
// count a multiply-add as 2; bytes are what the op reads and writes in device
// memory at the job's precision.
//
// Backward rule (backward_work):
// * Weighted kinds — conv, linear, lstm, and matmul (attention's two-activation
//   matmuls) — do two matrix products per forward one: the gradient with respect
//   to the input and the gradient with respect to the weight (or the second
//   operand). Backward = 2x forward FLOPs, 2x forward bytes, 2x kernels.
// * Embedding: the gradient is a scatter-add of the output gradient into the
//   table, and PyTorch's default (dense) gradient also zeroes and writes the
//   whole table: backward bytes = forward bytes + table bytes, memory-bound.
// * Every other kind (norm, activation, elementwise, pool, softmax) is
//   memory-bound and its backward reads and writes about as much as its
//   forward: backward = 1x forward.
// * Fused attention (an OpWork with flash_attention set; its kind is matmul,
//   whose efficiency it runs at): FlashAttention's backward recomputes the
//   scores q k^T from q, k and the saved per-row logsumexp instead of reading a
//   stored score matrix, then forms dV = P^T dO, dP = dO V^T, dQ = dS K and
//   dK = dS^T Q: five matrix products against the forward's two, so backward
//   = 2.5x forward FLOPs (Dao et al. 2022, "FlashAttention", Alg. 4; Dao 2023,
//   "FlashAttention-2", Alg. 2; the authors' benchmark counts it so:
//   Dao-AILab/flash-attention benchmarks/benchmark_flash_attention.py, flops(),
//   "2.5 * f if mode == 'bwd'"). It reads q, k, v, o, dO and the logsumexp and
//   writes dq, dk, dv: 2x the forward's bytes, in two kernels (the dO . o row
//   sums, then the main pass).
#pragma once

#include "core/zoo/device_model.h"
#include "core/zoo/precision.h"

namespace pacml {

// The work one op does, from which its time follows.
struct OpWork {
  OpKind kind = OpKind::kElementwise;
  double flops = 0;         // floating-point operations (multiply-add = 2)
  double bytes = 0;         // device-memory bytes read + written
  double kernels = 1;       // kernel launches
  double weight_bytes = 0;  // bytes of the weights the op uses (owned or shared)
  // A fused scaled-dot-product attention kernel (backward rule above).
  bool flash_attention = false;
};

// Time of `work` on `device` at `precision`, in milliseconds.
double op_time_ms(const OpWork& work, const DeviceModel& device, Precision precision);

// The backward pass of an op whose forward pass does `forward` (rule above).
OpWork backward_work(const OpWork& forward);

// True for the kinds whose backward is 2x forward.
bool is_weighted_kind(OpKind kind);

}  // namespace pacml
