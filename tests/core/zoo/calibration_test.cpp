// Calibration of zoo graphs against PipeDream's measured profiles
// (../shared/data/pipedream, skipped when absent).
#include "core/zoo/calibration.h"

#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "core/graph/pipedream_reader.h"
#include "core/zoo/model_zoo.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

std::string profile_dir() {
  return testing::shared_data_dir() + "/pipedream";
}

TEST(Calibration, TotalsSkipSourceLayerTimes) {
  LayerGraph g;
  g.layers = {{"in", "Input", 600, 0, 100, 0},
              {"conv", "Conv", 2, 4, 50, 10},
              {"fc", "Linear", 1, 2, 5, 20}};
  g.edges = {{0, 1}, {1, 2}};
  g.output_layer = 2;
  const GraphTotals t = graph_totals(g);
  EXPECT_EQ(t.ops, 3);
  EXPECT_EQ(t.parameter_bytes, 30);
  EXPECT_EQ(t.activation_bytes, 155);
  EXPECT_EQ(t.forward_ms, 3);  // the input's 600 ms of data loading is left out
  EXPECT_EQ(t.backward_ms, 6);
  const CalibrationRow row = calibrate(g, g);
  EXPECT_EQ(row.forward_ratio(), 1);
  EXPECT_EQ(row.op_ratio(), 1);
}

TEST(Calibration, TableHasOneLinePerRow) {
  CalibrationRow row;
  row.model = "m";
  row.batch = 8;
  row.zoo = {10, 2e6, 4e6, 1.5, 3};
  row.profile = {12, 2e6, 5e6, 3, 3};
  const std::string table = format_calibration_table({row, row});
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
  EXPECT_NE(table.find("10/12 0.83"), std::string::npos) << table;
  EXPECT_NE(table.find("1.5/3.0 0.50"), std::string::npos) << table;
}

// Each of the PAC-ML paper's five profiles, zoo at the profile's batch size.
class PaperProfile : public ::testing::TestWithParam<std::string> {};

TEST_P(PaperProfile, ZooMatchesTheProfileStructure) {
  const std::string path = profile_dir() + "/" + GetParam() + ".txt";
  PACML_REQUIRE_FILE(path);
  const ProfileSetting* setting = nullptr;
  for (const ProfileSetting& s : pipedream_profile_settings())
    if (s.profile == GetParam()) setting = &s;
  ASSERT_NE(setting, nullptr);
  ZooOptions options;
  options.batch = setting->batch;
  if (setting->seq_len) options.seq_len = setting->seq_len;
  if (setting->image_size) options.image_size = setting->image_size;
  const CalibrationRow row =
      calibrate(build_zoo_model(setting->zoo_model, options).graph, read_pipedream_file(path));
  if (GetParam() == "gnmt") {
    // PipeDream lists tuple indexing (__getitem__) as ops and counts the shared
    // embedding twice; the zoo does neither.
    EXPECT_NEAR(row.op_ratio(), 33.0 / 48, 1e-9);
    EXPECT_NEAR(row.parameter_ratio(), 0.829, 0.001);
    EXPECT_NEAR(row.activation_ratio(), 1, 0.03);
  } else {
    // CNNs: the same layers (PipeDream adds Size/View, the zoo a pooling layer
    // and the loss), the same weights, the same tensors.
    EXPECT_NEAR(row.op_ratio(), 1, 0.02);
    EXPECT_DOUBLE_EQ(row.parameter_ratio(), 1);
    EXPECT_NEAR(row.activation_ratio(), 1, 0.001);
  }
  // Times: the zoo's A100 is faster than the profiled V100, but within 5x.
  EXPECT_GT(row.forward_ratio(), 0.2);
  EXPECT_LT(row.forward_ratio(), 1.5);
  EXPECT_GT(row.backward_ratio(), 0.2);
  EXPECT_LT(row.backward_ratio(), 1.5);
}

INSTANTIATE_TEST_SUITE_P(Zoo, PaperProfile,
                         ::testing::Values("alexnet", "vgg16", "resnet18", "squeezenet1_0",
                                           "gnmt"));

TEST(Calibration, ReportOverAllPresentProfiles) {
  PACML_REQUIRE_FILE(profile_dir() + "/alexnet.txt");
  for (const DeviceModel& device : {DeviceModel::a100()}) {
    const std::vector<CalibrationRow> rows = calibration_report(profile_dir(), device);
    EXPECT_GE(rows.size(), 5u);
    for (const CalibrationRow& row : rows) {
      EXPECT_EQ(row.device, device.name);
      EXPECT_GT(row.batch, 0);
    }
    // Kept in the test output so the figures in core/zoo/README.md can be re-checked.
    std::cout << "zoo on " << device.name << " vs PipeDream profiles (ratio = zoo/profile)\n"
              << format_calibration_table(rows);
  }
  const DeviceModel v100 =
      load_device_model_file(std::string(PACML_SOURCE_DIR) + "/contrib/devices/v100.yaml");
  std::cout << "zoo on " << v100.name << " vs PipeDream profiles (ratio = zoo/profile)\n"
            << format_calibration_table(calibration_report(profile_dir(), v100));
}

TEST(Calibration, AbsentDirectoryGivesNoRows) {
  EXPECT_TRUE(calibration_report("/nonexistent", DeviceModel::a100()).empty());
}

}  // namespace
}  // namespace pacml
