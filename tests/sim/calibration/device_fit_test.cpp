// `pacml device fit`'s library (sim/calibration/device_fit.h): the fit
// recovers known constants from synthetic probe data, the device file it
// writes reads back exactly, and bad probes are refused.
#include "sim/calibration/device_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/util/error.h"
#include "tests/core/zoo/zoo_test_util.h"

namespace pacml::sim {
namespace {

const char* kColumns =
    "kind,model,batch,seq_len,image_size,layers,precision,attention,checkpointing,optimizer,"
    "builder,seconds,peak_bytes,rate,status\n";

ProbeRun read_text(const std::string& body) {
  std::istringstream in(std::string("# pacml_probe: 1\n# device: NVIDIA H200\n") + kColumns + body);
  return read_probe(in, "synthetic.csv");
}

// The device the synthetic probe "measures": an H200 whose constants are
// all moved away from the datasheet file's.
DeviceModel true_device() {
  DeviceModel d = load_device("h200", "test");
  d.efficiency[static_cast<int>(OpKind::kConv)] = 0.55;
  d.efficiency[static_cast<int>(OpKind::kMatmul)] = 0.35;
  d.memory_bandwidth = 3.6e12;
  d.launch_overhead = 6e-6;
  d.host.per_op.fill(15e-6);
  d.host.per_step = 3e-3;
  d.peak_flops[static_cast<int>(Precision::kBf16)] = 900e12;
  return d;
}

// Steps small enough for a unit test, yet each constant matters to some:
// convolutions (resnet50), eager attention's matmuls (gpt2 eager), the host
// at small batches, bandwidth-bound steps in bf16.
const char* kSteps =
    "step,resnet50,8,,224,,fp32,,no,adamw,torchvision,1,,,ok\n"
    "step,resnet50,64,,224,,bf16,,no,adamw,torchvision,1,,,ok\n"
    "step,resnet50,2,,64,,bf16,,no,sgd,torchvision,1,,,ok\n"
    "step,gpt2,1,128,,2,bf16,sdpa,no,adamw,transformers,1,,,ok\n"
    "step,gpt2,8,1024,,2,bf16,eager,no,adamw,transformers,1,,,ok\n"
    "step,gpt2,8,1024,,2,fp32,eager,no,adamw,transformers,1,,,ok\n"
    "step,gpt2,16,1024,,2,bf16,sdpa,yes,adamw,transformers,1,,,ok\n"
    "step,bert-base,32,512,,2,bf16,sdpa,no,adamw,transformers,1,,,ok\n"
    "step,bert-base,2,128,,2,fp32,eager,no,adamw,transformers,1,,,ok\n";

// A probe whose every figure is what `truth` predicts.
ProbeRun synthetic_probe(const DeviceModel& truth) {
  const double linear = truth.efficiency_of(OpKind::kLinear);
  std::ostringstream rates;
  for (Precision p : {Precision::kFp32, Precision::kBf16})
    rates << "matmul,,8192,,,," << precision_name(p) << ",,,,,0.001,," << truth.peak(p) * linear
          << ",ok\n";
  rates << "copy,,2147483648,,,,,,,,,0.001,," << truth.memory_bandwidth / 0.8 << ",ok\n"
        << "host_op,,2000,,,,,,,,,5e-06,,,ok\n";
  ProbeRun run = read_text(rates.str() + kSteps);
  const std::vector<ProbeComparison> truths = compare_probe(run, truth);
  for (const ProbeComparison& c : truths) {
    ProbeRow& row = const_cast<ProbeRow&>(*c.row);
    row.seconds = c.predicted_seconds;
    row.peak_bytes = c.predicted_peak_bytes;
  }
  return run;
}

TEST(DeviceFit, RecoversKnownConstantsFromSyntheticProbeData) {
  const DeviceModel truth = true_device();
  const ProbeRun run = synthetic_probe(truth);
  const DeviceFit fit = fit_device(run, load_device("h200", "test"));
  // Before: the datasheet file is off; after: every step within 1 %.
  double worst_before = 0, worst_after = 0;
  for (size_t i = 0; i < fit.after_rows.size(); ++i) {
    worst_before = std::max(worst_before, std::abs(fit.before_rows[i].time_error()));
    worst_after = std::max(worst_after, std::abs(fit.after_rows[i].time_error()));
  }
  EXPECT_GT(worst_before, 0.05);
  EXPECT_LT(worst_after, 0.01);
  // The measured rate sets the peak exactly; the searched constants land
  // within 10 % of the truth.
  EXPECT_NEAR(fit.after.peak(Precision::kBf16), 900e12, 1e6);
  const auto near = [](double got, double want) { return std::abs(got / want - 1) < 0.10; };
  EXPECT_PRED2(near, fit.after.efficiency_of(OpKind::kConv), 0.55);
  EXPECT_PRED2(near, fit.after.efficiency_of(OpKind::kMatmul), 0.35);
  EXPECT_PRED2(near, fit.after.host.per_op[0], 15e-6);
  EXPECT_PRED2(near, fit.after.host.per_step, 3e-3);
  EXPECT_PRED2(near, fit.after.memory_bandwidth, 3.6e12);
  // No LSTM among the steps: its efficiency is reported as not exercised.
  EXPECT_NE(std::find(fit.not_exercised.begin(), fit.not_exercised.end(), "efficiency.lstm"),
            fit.not_exercised.end());
  // Memory is compared, not fitted: the same before and after.
  EXPECT_EQ(fit.before_rows[0].predicted_peak_bytes, fit.after_rows[0].predicted_peak_bytes);
}

TEST(DeviceFit, ScoresCountTolerancesAndVerdicts) {
  ProbeRun run = read_text(
      "step,resnet50,8,,224,,fp32,,no,adamw,torchvision,0.1,1e9,,ok\n"
      "step,llama3-8b,1,2048,,,bf16,sdpa,yes,adamw,transformers,,,,oom\n"
      "step,gpt2,8,,,,,,,,,,,,skipped\n");
  const std::vector<ProbeComparison> rows = compare_probe(run, load_device("h200", "test"));
  ASSERT_EQ(rows.size(), 2u);  // the skipped row is left out
  EXPECT_FALSE(rows[1].measured_fits());
  // 8 B parameters with AdamW and bf16 autocast: 16 bytes per parameter
  // before activations, more than 141 GB.
  EXPECT_FALSE(rows[1].predicted_fits);
  EXPECT_TRUE(std::isnan(rows[1].time_error()));
  const ProbeScore s = score_probe(rows, 0.35);
  EXPECT_EQ(s.verdicts, 2);
  EXPECT_EQ(s.verdicts_right, 2);
  EXPECT_EQ(s.timed, 1);
  EXPECT_EQ(s.memory, 1);
}

TEST(DeviceFit, RefusesAProbeWithoutATimedStep) {
  const ProbeRun run = read_text("step,gpt2,8,,,,,,,,,,,,skipped\n");
  try {
    fit_device(run, load_device("h200", "test"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("synthetic.csv: no training step ran"), std::string::npos)
        << e.what();
  }
}

TEST(DeviceFit, NamesTheFileLineOfAModelTheZooLacks) {
  const ProbeRun run = read_text("step,alexnet9,8,,224,,fp32,,no,adamw,torchvision,0.1,,,ok\n");
  try {
    compare_probe(run, load_device("h200", "test"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("synthetic.csv:4"), std::string::npos) << e.what();
  }
}

TEST(DeviceFit, MapsTheProbesDeviceNameToABuiltIn) {
  EXPECT_EQ(builtin_device_for("NVIDIA H200"), "h200");
  EXPECT_EQ(builtin_device_for("NVIDIA GH200 480GB"), "gh200");
  EXPECT_EQ(builtin_device_for("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(builtin_device_for("NVIDIA A100-SXM4-40GB"), "a100-40gb");
  EXPECT_EQ(builtin_device_for("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(builtin_device_for("NVIDIA H100 PCIe"), "");  // not the SXM part
  EXPECT_EQ(builtin_device_for("x86_64"), "");
}

TEST(DeviceFile, WrittenFileReadsBackExactly) {
  DeviceModel d = true_device();
  d.host.per_op = {60e-6, 120e-6, 30e-6, 60e-6};  // per family
  d.name = "H200 \"fitted\": a: b";
  const std::string text = device_file_text(d, {"two\nlines", ""});
  std::istringstream in(text);
  zoo_test::expect_same_device(load_device_model(in, "written"), d);
  EXPECT_EQ(text.rfind("# two\n# lines\n#\npacml_device: 1\n", 0), 0u) << text;
}

}  // namespace
}  // namespace pacml::sim
