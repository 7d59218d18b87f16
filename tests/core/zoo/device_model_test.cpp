// Device models: the built-in A100, the shipped YAML files, and clear errors
// (file and line) for bad device files.
#include "core/zoo/device_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/cluster/cluster_presets.h"
#include "core/config/settings_table.h"
#include "core/util/error.h"
#include "tests/core/zoo/zoo_test_util.h"
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

// Each key is bound to its member and documents the member's initial value as
// its default: a device whose `host:` writes every key at its documented
// default reads back with a default-built DeviceModel's host (the device's
// other keys are required and document none).
TEST(DeviceModel, EachKeysDocumentedDefaultIsItsMembersValue) {
  std::string host = "host:\n";
  for (const SettingKey& k : device_host_settings().keys())
    host += "  " + k.name + ": \"" + k.default_text + "\"\n";
  EXPECT_NE(host.find("per_op: \"20e-6\""), std::string::npos) << host;
  const DeviceModel read = parse(kGoodDevice + host), d;
  EXPECT_EQ(read.host.per_op, d.host.per_op);
  EXPECT_EQ(read.host.per_step, d.host.per_step);
  for (const SettingKey& k : device_settings().keys()) {
    if (k.name != "host") {
      EXPECT_EQ(k.default_text, "") << k.name;
    }
  }
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
  zoo_test::expect_same_device(file, built_in);

  const DeviceModel v100 = load_device_model_file(dir + "v100.yaml");
  EXPECT_EQ(v100.peak(Precision::kFp32), 15.7e12);
  EXPECT_EQ(v100.peak_flops[static_cast<int>(Precision::kBf16)], 0);  // V100 has no bf16
  EXPECT_LT(v100.memory_bandwidth, built_in.memory_bandwidth);
}

// The host's cost (doc/PHYSICAL.md §9): optional, one number or one per
// model family, checked like every other key.
TEST(DeviceModel, AFileWithoutHostGetsThePyTorch2Defaults) {
  const DeviceModel d = parse(kGoodDevice);
  const HostCost defaults = HostCost::pytorch2_eager();
  EXPECT_EQ(d.host.per_op, defaults.per_op);
  EXPECT_EQ(d.host.per_step, defaults.per_step);
  for (double per_op : defaults.per_op) EXPECT_EQ(per_op, 20e-6);  // one value, every family
  EXPECT_EQ(defaults.per_step, 2e-3);
  // A host section that leaves a key out keeps that key's default.
  const DeviceModel step_only = parse(std::string(kGoodDevice) + "host:\n  per_step: 5e-3\n");
  EXPECT_EQ(step_only.host.per_op, defaults.per_op);
  EXPECT_EQ(step_only.host.per_step, 5e-3);
}

TEST(DeviceModel, HostPerOpIsOneNumberOrOnePerFamily) {
  const DeviceModel one = parse(std::string(kGoodDevice) + "host: {per_op: 25e-6}\n");
  for (double per_op : one.host.per_op) EXPECT_EQ(per_op, 25e-6);
  const DeviceModel by_family =
      parse(std::string(kGoodDevice) +
            "host:\n  per_op: {cnn: 1e-5, transformer: 2e-5, rnn: 3e-5, other: 4e-5}\n"
            "  per_step: 0\n");
  EXPECT_EQ(by_family.host.per_op, (std::array<double, kNumHostFamilies>{1e-5, 2e-5, 3e-5, 4e-5}));
  EXPECT_EQ(by_family.host.per_step, 0);
  EXPECT_STREQ(host_family_name(0), "cnn");
  EXPECT_STREQ(host_family_name(kNumHostFamilies - 1), "other");
}

TEST(DeviceModel, BadHostSectionsNameFileAndLine) {
  const std::string good = kGoodDevice;  // 19 lines: host: is line 20
  EXPECT_EQ(error_of(good + "host:\n  per_op: 20\n"),
            "gpu.yaml:21: per_op = 20 is outside the plausible range [0, 0.01] seconds "
            "(a unit slip?)");
  EXPECT_EQ(error_of(good + "host:\n  per_step: 20\n"),
            "gpu.yaml:21: per_step = 20 is outside the plausible range [0, 1] seconds "
            "(a unit slip?)");
  EXPECT_EQ(error_of(good + "host:\n  per_step: -1e-3\n"),
            "gpu.yaml:21: per_step must not be negative: -1e-3");
  EXPECT_EQ(error_of(good + "host:\n  per_op:\n    cnn: 1e-5\n    lstm: 1e-5\n")
                .rfind("gpu.yaml:23: unknown model family 'lstm'; known: cnn, transformer, rnn, "
                       "other",
                       0),
            0u);
  EXPECT_EQ(error_of(good + "host:\n  per_op: {cnn: 1e-5, transformer: 1e-5, rnn: 1e-5}\n"),
            "gpu.yaml:21: per_op: missing model family 'other' (give one number for all, or "
            "every family)");
  EXPECT_EQ(error_of(good + "host:\n  per_op: {cnn: fast, transformer: 1e-5, rnn: 1e-5, "
                            "other: 1e-5}\n"),
            "gpu.yaml:21: cnn is not a number: 'fast'");
  EXPECT_EQ(error_of(good + "host:\n  per_op: [1e-5]\n"),
            "gpu.yaml:21: per_op must be a single value");
  EXPECT_EQ(error_of(good + "host:\n  per_call: 1e-5\n")
                .rfind("gpu.yaml:21: unknown host key 'per_call'; known: per_op, per_step", 0),
            0u);
  EXPECT_EQ(error_of(good + "host: 20e-6\n"), "gpu.yaml:20: 'host' must be a mapping");
}

// Every file in contrib/devices is compiled in under its name, loads, and
// states its dense peaks; only ElasticFlow's testbed (a100, v100) carries
// fitted host values, every other file the PyTorch 2 defaults.
TEST(DeviceModel, EveryShippedDeviceFileIsBuiltInAndLoads) {
  const std::string dir = std::string(PACML_SOURCE_DIR) + "/contrib/devices/";
  const std::set<std::string> fitted_host = {"a100", "v100"};
  std::set<std::string> embedded;
  for (const EmbeddedFile& file : builtin_device_files()) {
    embedded.insert(file.name);
    std::ifstream in(dir + file.name + ".yaml");
    ASSERT_TRUE(in) << file.name;
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), file.text) << file.name << ": rebuild to embed the file";
    const DeviceModel d = load_device_model_file(dir + file.name + ".yaml");
    EXPECT_GT(d.peak(Precision::kFp32), 0) << file.name;
    const HostCost expected =
        fitted_host.count(file.name) ? HostCost::elasticflow_2021() : HostCost::pytorch2_eager();
    EXPECT_EQ(d.host.per_op, expected.per_op) << file.name;
    EXPECT_EQ(d.host.per_step, expected.per_step) << file.name;
  }
  const std::set<std::string> shipped = {"a100", "a100-40gb", "b200",   "gh200", "h100-sxm",
                                         "h200", "l40s",      "mi300x", "v100"};
  EXPECT_EQ(embedded, shipped);  // core/local.mk's DEVICE_FILES lists each file
}

TEST(DeviceModel, DatasheetFilesHoldDenseRates) {
  const std::string dir = std::string(PACML_SOURCE_DIR) + "/contrib/devices/";
  // The issue's H200 figures (issue 29): 67 fp32, 494 tf32, 989 bf16, 4.8 TB/s, 141 GB.
  const DeviceModel h200 = load_device_model_file(dir + "h200.yaml");
  EXPECT_EQ(h200.peak(Precision::kFp32), 67e12);
  EXPECT_EQ(h200.peak(Precision::kTf32), 494e12);
  EXPECT_EQ(h200.peak(Precision::kBf16), 989e12);
  EXPECT_EQ(h200.memory_bytes, 141e9);
  // Bandwidth: 0.88 of the datasheet figure, the fraction a100.yaml holds.
  const DeviceModel a100 = DeviceModel::a100();
  EXPECT_NEAR(a100.memory_bandwidth / 2.039e12, 0.88, 0.005);
  EXPECT_NEAR(h200.memory_bandwidth / 4.8e12, 0.88, 0.005);
  EXPECT_NEAR(load_device_model_file(dir + "b200.yaml").memory_bandwidth / 7.7e12, 0.88, 0.005);
  EXPECT_NEAR(load_device_model_file(dir + "l40s.yaml").memory_bandwidth / 864e9, 0.88, 0.005);
  // MI300X: no tf32 (README.md there says why), so a tf32 job is refused.
  const DeviceModel mi300x = load_device_model_file(dir + "mi300x.yaml");
  EXPECT_EQ(mi300x.peak_flops[static_cast<int>(Precision::kTf32)], 0);
  EXPECT_THROW(mi300x.peak(Precision::kTf32), InputError);
}

TEST(DeviceModel, OpKindNames) {
  EXPECT_STREQ(op_kind_name(OpKind::kConv), "conv");
  EXPECT_STREQ(op_kind_name(OpKind::kLstm), "lstm");
  EXPECT_STREQ(op_kind_name(OpKind::kSoftmax), "softmax");
}

}  // namespace
}  // namespace pacml
