// Measured scaling tables (core/parallel/throughput_table.h).
#include <gtest/gtest.h>

#include <sstream>

#include "core/parallel/throughput_table.h"
#include "core/util/error.h"

namespace pacml {
namespace {

std::string error_of(const std::string& csv) {
  ThroughputTable table;
  std::istringstream in(csv);
  try {
    table.add_csv(in, "resnet50", "resnet50.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ThroughputTable, ReadsElasticFlowsFormatAndLooksUpThroughAliases) {
  ThroughputTable table;
  std::istringstream in("global_batch_size,1,2,4\n64,6.84,11.83,18.31\n128,3.65,6.61,11.22\n");
  table.add_csv(in, "bert", "bert.csv");
  ASSERT_TRUE(table.step_time("bert-base", 64, 2).has_value());
  EXPECT_DOUBLE_EQ(*table.step_time("bert-base", 64, 2), 1 / 11.83);
  EXPECT_DOUBLE_EQ(*table.step_time("bert", 128, 4), 1 / 11.22);
  EXPECT_FALSE(table.step_time("bert", 128, 8).has_value());
  EXPECT_FALSE(table.step_time("bert", 32, 1).has_value());
  EXPECT_FALSE(table.step_time("gpt2", 64, 1).has_value());
  std::ostringstream out;
  table.write_csv(out, "bert");
  EXPECT_EQ(out.str(), "global_batch_size,1,2,4\n64,6.84,11.83,18.31\n128,3.65,6.61,11.22\n");
}

TEST(ThroughputTable, RejectsHolesNegativesAndText) {
  EXPECT_EQ(error_of("global_batch_size,1,2\n64,6.8,\n"),
            "resnet50.csv:2: no throughput for 2 GPUs (a hole)");
  EXPECT_EQ(error_of("global_batch_size,1,2\n64,6.8\n"),
            "resnet50.csv:2: expected 3 cells, got 2 (a hole in the table?)");
  EXPECT_EQ(error_of("global_batch_size,1,2\n64,6.8,-1\n"),
            "resnet50.csv:2: iterations per second must be positive, got -1");
  EXPECT_NE(error_of("global_batch_size,1,2\n64,6.8,fast\n").find("resnet50.csv:2"),
            std::string::npos);
  EXPECT_NE(error_of("batch,1,2\n").find("resnet50.csv:1: expected the header"), std::string::npos);
  EXPECT_NE(error_of("global_batch_size,1,1\n").find("appears twice"), std::string::npos);
  EXPECT_NE(error_of("global_batch_size,1,x\n").find("resnet50.csv:1"), std::string::npos);
  EXPECT_NE(error_of("global_batch_size,1\n0,5\n").find("resnet50.csv:2"), std::string::npos);
  EXPECT_EQ(error_of(""), "resnet50.csv: empty throughput table");
}

TEST(ThroughputTable, MissingDirectoryIsAnError) {
  EXPECT_THROW(ThroughputTable::load_dir("/nonexistent/pacml-tables"), InputError);
}

}  // namespace
}  // namespace pacml
