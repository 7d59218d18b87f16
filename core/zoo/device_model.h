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
//   host: {per_op: 20e-6, per_step: 2e-3}       # optional: the CPU's share
#pragma once

#include <array>
#include <istream>
#include <string>
#include <vector>

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

// What the host (the CPU running eager PyTorch) spends driving this GPU
// (doc/PHYSICAL.md §9). It belongs to the device file because it describes a
// machine and its software stack, not the physics of the step: ElasticFlow's
// 2021 harness on its A100 servers has its own fitted values; any other GPU
// gets the PyTorch 2 eager defaults.
//
// Per-op time is kept by model family, in the order of ModelFamily
// (core/parallel/parallel_job.h; the estimator checks the order): the fitted
// ElasticFlow values differ by family, the PyTorch 2 default does not.
constexpr int kNumHostFamilies = 4;

// "cnn", "transformer", "rnn", "other": the keys of `host: per_op:`.
const char* host_family_name(int family);

struct HostCost {
  // Seconds the host spends issuing one op of one pass (forward or backward):
  // the Python module call, autograd's bookkeeping, the dispatcher and the
  // kernel launch call. By model family.
  std::array<double, kNumHostFamilies> per_op{};
  // Seconds per training step outside the ops: the data loader hand-off,
  // zero_grad, the loss's device-to-host copy that synchronises each step.
  double per_step = 0;

  // A device file without `host:` gets these (doc/PHYSICAL.md §9).
  static HostCost pytorch2_eager();
  // Fitted to ElasticFlow's 2021 harness (doc/PHYSICAL.md §6): a100.yaml and
  // v100.yaml, and the built-in A100.
  static HostCost elasticflow_2021();
};

struct DeviceModel {
  std::string name;
  // Dense peak FLOP/s by Precision; 0 = the device does not support it.
  std::array<double, kNumPrecisions> peak_flops{};
  double memory_bandwidth = 0;  // bytes/s, sustained (not the datasheet peak)
  double launch_overhead = 0;   // seconds added per kernel launch
  // Fraction of peak FLOP/s an op of each kind reaches when compute-bound.
  std::array<double, kNumOpKinds> efficiency{};
  double memory_bytes = 0;  // device memory
  HostCost host = HostCost::pytorch2_eager();

  // Peak FLOP/s at `precision`; throws InputError if the device lacks it.
  double peak(Precision precision) const;
  double efficiency_of(OpKind kind) const { return efficiency[static_cast<int>(kind)]; }

  // The built-in default: A100-SXM4-80GB (same numbers as contrib/devices/a100.yaml).
  static DeviceModel a100();
};

// Parses a device file. Every error names "source:line": missing, negative,
// non-numeric or out-of-range values, unknown keys, unknown op kinds.
DeviceModel load_device_model(std::istream& in, const std::string& source);

// The keys of a device file and of its `host:` section, declared once
// (`pacml config keys device`, `pacml config keys device.host`).
class SettingsTable;
const SettingsTable& device_settings();
const SettingsTable& device_host_settings();
DeviceModel load_device_model_file(const std::string& path);

// `device` as a device file that load_device_model reads back exactly (every
// number written losslessly), after `comment`, one "# " line per entry. The
// host's per_op is one number when every family has the same value.
std::string device_file_text(const DeviceModel& device, const std::vector<std::string>& comment);

}  // namespace pacml
