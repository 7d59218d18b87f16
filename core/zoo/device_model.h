// The GPU a zoo graph is costed on, as data.
//
// A device model is a handful of numbers: dense peak FLOP/s per precision,
// sustained memory bandwidth, a per-kernel launch overhead, the fraction of
// peak each kind of op reaches, and the memory size. pacml embeds an A100
// (DeviceModel::a100()) so the zoo works with no files on disk; other GPUs are
// YAML files (contrib/devices/*.yaml, format in core/zoo/README.md):
//
//   pacml_device: 1                # format version
//   name: V100-SXM2-16GB
//   memory_bytes: 16e9
//   memory_bandwidth: 8.3e11       # bytes/s a streaming kernel sustains
//   launch_overhead: 10e-6         # seconds per kernel
//   peak_flops: {fp32: 15.7e12, fp16: 125e12}   # bf16 omitted: unsupported
//   efficiency: {conv: 0.6, linear: 0.7, ...}   # every op kind, in (0, 1]
#pragma once

#include <array>
#include <istream>
#include <string>

#include "core/zoo/precision.h"

namespace pacml {

// What an op does, as far as its cost is concerned. Each kind has its own
// efficiency in the device model and its own backward rule (op_cost.h).
enum class OpKind {
  kConv,         // convolution (cuDNN)
  kLinear,       // dense layer (GEMM with a weight matrix)
  kMatmul,       // batched matmul of two activations (attention scores/context)
  kLstm,         // a whole (possibly bidirectional) LSTM layer over the sequence
  kEmbedding,    // table lookup
  kNorm,         // batch norm, layer norm
  kActivation,   // relu, gelu, tanh, hardtanh
  kElementwise,  // add, dropout, concat
  kPool,         // max / average pooling
  kSoftmax,      // softmax, cross-entropy loss
};

constexpr int kNumOpKinds = 10;

// The name used in device files: "conv", "linear", "matmul", ...
const char* op_kind_name(OpKind kind);

struct DeviceModel {
  std::string name;
  // Dense peak FLOP/s by Precision; 0 = the device does not support it.
  std::array<double, kNumPrecisions> peak_flops{};
  double memory_bandwidth = 0;  // bytes/s, sustained (not the datasheet peak)
  double launch_overhead = 0;   // seconds added per kernel launch
  // Fraction of peak FLOP/s an op of each kind reaches when compute-bound.
  std::array<double, kNumOpKinds> efficiency{};
  double memory_bytes = 0;  // device memory

  // Peak FLOP/s at `precision`; throws InputError if the device lacks it.
  double peak(Precision precision) const;
  double efficiency_of(OpKind kind) const { return efficiency[static_cast<int>(kind)]; }

  // The built-in default: A100-SXM4-80GB (same numbers as contrib/devices/a100.yaml).
  static DeviceModel a100();
};

// Parses a device file. Every error names "source:line": missing, negative,
// non-numeric or out-of-range values, unknown keys, unknown op kinds.
DeviceModel load_device_model(std::istream& in, const std::string& source);

// The keys of a device file, declared once (`pacml config keys device`).
class SettingsTable;
const SettingsTable& device_settings();
DeviceModel load_device_model_file(const std::string& path);

}  // namespace pacml
