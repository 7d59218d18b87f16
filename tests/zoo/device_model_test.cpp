// Device models: the built-in A100, the shipped YAML files, and clear errors
// (file and line) for bad device files.
#include "core/zoo/device_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/util/error.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

const char* const kGoodDevice = R"(pacml_device: 1
name: test-gpu
memory_bytes: 16e9
memory_bandwidth: 8e11
launch_overhead: 5e-6
peak_flops:
  fp32: 10e12
  fp16: 80e12
efficiency:
  conv: 0.7
  linear: 0.7
  matmul: 0.5
  lstm: 0.7
  embedding: 0.5
  norm: 0.5
  activation: 0.5
  elementwise: 0.5
  pool: 0.5
  softmax: 0.5
)";

DeviceModel parse(const std::string& text) {
  std::istringstream in(text);
  return load_device_model(in, "gpu.yaml");
}

// Replaces the first occurrence of `from` in the good device text.
std::string good_with(const std::string& from, const std::string& to) {
  std::string text = kGoodDevice;
  const size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

// The message of the InputError that parsing `text` throws.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(DeviceModel, ParsesAGoodFile) {
  DeviceModel d = parse(kGoodDevice);
  EXPECT_EQ(d.name, "test-gpu");
  EXPECT_EQ(d.memory_bytes, 16e9);
  EXPECT_EQ(d.memory_bandwidth, 8e11);
  EXPECT_EQ(d.launch_overhead, 5e-6);
  EXPECT_EQ(d.peak(Precision::kFp32), 10e12);
  EXPECT_EQ(d.peak(Precision::kFp16), 80e12);
  EXPECT_EQ(d.efficiency_of(OpKind::kConv), 0.7);
  EXPECT_EQ(d.efficiency_of(OpKind::kSoftmax), 0.5);
}

TEST(DeviceModel, AMissingHalfPrecisionIsUnsupportedNotAnError) {
  DeviceModel d = parse(kGoodDevice);  // no bf16 line
  EXPECT_EQ(d.peak_flops[static_cast<int>(Precision::kBf16)], 0);
  try {
    d.peak(Precision::kBf16);
    ADD_FAILURE() << "bf16 should be unsupported";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test-gpu: this device model has no bf16"),
              std::string::npos);
  }
}

TEST(DeviceModel, BadValuesNameFileAndLine) {
  EXPECT_EQ(error_of(good_with("memory_bandwidth: 8e11", "memory_bandwidth: -8e11")),
            "gpu.yaml:4: memory_bandwidth must not be negative: -8e11");
  EXPECT_EQ(error_of(good_with("memory_bytes: 16e9", "memory_bytes: lots")),
            "gpu.yaml:3: memory_bytes is not a number: 'lots'");
  EXPECT_EQ(error_of(good_with("memory_bandwidth: 8e11", "memory_bandwidth: 0")),
            "gpu.yaml:4: memory_bandwidth = 0 is outside the plausible range [1e9, 1e14] "
            "bytes/s (a unit slip?)");
  EXPECT_EQ(error_of(good_with("  fp32: 10e12", "  fp32: -1")),
            "gpu.yaml:7: fp32 must not be negative: -1");
  EXPECT_EQ(error_of(good_with("  linear: 0.7", "  linear: 1.5")),
            "gpu.yaml:11: linear = 1.5 is outside the plausible range [0.001, 1] fraction of peak "
            "(a unit slip?)");
  EXPECT_EQ(error_of(good_with("  linear: 0.7", "  linear: 0")),
            "gpu.yaml:11: linear = 0 is outside the plausible range [0.001, 1] fraction of peak "
            "(a unit slip?)");
  EXPECT_EQ(error_of(good_with("  pool: 0.5", "  pool: [0.5]")),
            "gpu.yaml:18: pool must be a single value");
}

// Values of the right sign but the wrong magnitude are unit slips (GB for
// bytes, µs for seconds): each is refused with its plausible range.
TEST(DeviceModel, AbsurdMagnitudesAreRefused) {
  struct Case {
    const char *from, *to, *error;
  };
  const Case cases[] = {
      {"memory_bytes: 16e9", "memory_bytes: 16",
       "gpu.yaml:3: memory_bytes = 16 is outside the plausible range [1e8, 1e13] bytes"},
      {"memory_bandwidth: 8e11", "memory_bandwidth: 1e20",
       "gpu.yaml:4: memory_bandwidth = 1e20 is outside the plausible range [1e9, 1e14] "
       "bytes/s"},
      {"launch_overhead: 5e-6", "launch_overhead: 5",
       "gpu.yaml:5: launch_overhead = 5 is outside the plausible range [0, 0.01] seconds"},
      {"  fp32: 10e12", "  fp32: 10",
       "gpu.yaml:7: fp32 = 10 is outside the plausible range [1e9, 1e17] FLOP/s"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(error_of(good_with(c.from, c.to)), std::string(c.error) + " (a unit slip?)");
  // The edges of each range are accepted.
  EXPECT_NO_THROW(parse(good_with("launch_overhead: 5e-6", "launch_overhead: 0")));
  EXPECT_NO_THROW(parse(good_with("memory_bytes: 16e9", "memory_bytes: 1e13")));
  EXPECT_NO_THROW(parse(good_with("  linear: 0.7", "  linear: 1")));
}

TEST(DeviceModel, UnknownOpKindOrKeyIsAnError) {
  const std::string kind = error_of(good_with("  conv: 0.7", "  convolution: 0.7"));
  EXPECT_EQ(kind.rfind("gpu.yaml:10: unknown op kind 'convolution'; known: ", 0), 0u) << kind;
  EXPECT_NE(kind.find("conv, linear, matmul, lstm"), std::string::npos) << kind;
  EXPECT_EQ(error_of(good_with("  fp16: 80e12", "  fp8: 80e12"))
                .rfind("gpu.yaml:8: unknown precision 'fp8'", 0),
            0u);
  EXPECT_EQ(error_of(good_with("launch_overhead: 5e-6", "launch_overhead: 5e-6\ncolour: green"))
                .rfind("gpu.yaml:6: unknown device key 'colour'", 0),
            0u);
}

TEST(DeviceModel, MissingValuesAreErrors) {
  EXPECT_EQ(error_of(good_with("memory_bytes: 16e9\n", "")), "gpu.yaml:1: missing 'memory_bytes'");
  EXPECT_EQ(error_of(good_with("  softmax: 0.5\n", "")),
            "gpu.yaml:10: efficiency: missing op kind 'softmax'");
  EXPECT_EQ(error_of(good_with("  fp32: 10e12\n", "")), "gpu.yaml:7: missing 'fp32'");
  EXPECT_EQ(error_of(good_with("name: test-gpu\n", "")), "gpu.yaml:1: missing 'name'");
  EXPECT_EQ(error_of(good_with("pacml_device: 1\n", "")),
            "gpu.yaml: missing 'pacml_device: 1' (format version)");
  EXPECT_EQ(error_of(good_with("pacml_device: 1", "pacml_device: 2")),
            "gpu.yaml:1: unsupported device format version 2");
  EXPECT_EQ(error_of("").rfind("gpu.yaml: expected a mapping", 0), 0u);
  EXPECT_EQ(error_of("name: [unclosed").rfind("gpu.yaml:", 0), 0u);
}

TEST(DeviceModel, MissingFileIsAnError) {
  try {
    load_device_model_file("/nonexistent/gpu.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/nonexistent/gpu.yaml");
  }
}

TEST(DeviceModel, LoadsFromAFileAndNamesItInErrors) {
  char path[] = "/tmp/pacml_device_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  {
    std::ofstream out(path);
    out << good_with("  norm: 0.5", "  norm: high");
  }
  try {
    load_device_model_file(path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), std::string(path) + ":15: norm is not a number: 'high'");
  }
  std::remove(path);
}

TEST(DeviceModel, ShippedFilesLoadAndTheA100MatchesTheBuiltIn) {
  const std::string dir = std::string(PACML_SOURCE_DIR) + "/contrib/devices/";
  const DeviceModel file = load_device_model_file(dir + "a100.yaml");
  const DeviceModel built_in = DeviceModel::a100();
  EXPECT_EQ(file.name, built_in.name);
  EXPECT_EQ(file.memory_bytes, built_in.memory_bytes);
  EXPECT_EQ(file.memory_bandwidth, built_in.memory_bandwidth);
  EXPECT_EQ(file.launch_overhead, built_in.launch_overhead);
  EXPECT_EQ(file.peak_flops, built_in.peak_flops);
  EXPECT_EQ(file.efficiency, built_in.efficiency);

  const DeviceModel v100 = load_device_model_file(dir + "v100.yaml");
  EXPECT_EQ(v100.peak(Precision::kFp32), 15.7e12);
  EXPECT_EQ(v100.peak_flops[static_cast<int>(Precision::kBf16)], 0);  // V100 has no bf16
  EXPECT_LT(v100.memory_bandwidth, built_in.memory_bandwidth);
}

TEST(DeviceModel, OpKindNames) {
  EXPECT_STREQ(op_kind_name(OpKind::kConv), "conv");
  EXPECT_STREQ(op_kind_name(OpKind::kLstm), "lstm");
  EXPECT_STREQ(op_kind_name(OpKind::kSoftmax), "softmax");
}

}  // namespace
}  // namespace pacml
