// Numeric precision of a training job: how many bytes a tensor element takes
// and which peak throughput of the device applies.
#pragma once

#include <string>

namespace pacml {

// kTf32: fp32 tensors whose matrix products run on tensor cores in TF32
// (PyTorch's default for convolutions on Ampere and newer): 4 bytes per
// element, the device's tf32 peak.
enum class Precision { kFp32, kFp16, kBf16, kTf32 };

constexpr int kNumPrecisions = 4;

// "fp32", "fp16", "bf16", "tf32".
const char* precision_name(Precision precision);

// Bytes per tensor element (activations and parameters alike: the zoo does not
// model fp32 master weights of mixed-precision training).
int bytes_per_element(Precision precision);

// Parses "fp32" / "fp16" / "bf16" / "tf32" (also "float32", "float16", "bfloat16").
// Throws InputError("--precision", ...) listing the accepted names.
Precision parse_precision(const std::string& text);

}  // namespace pacml
