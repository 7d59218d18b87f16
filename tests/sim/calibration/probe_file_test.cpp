#include "sim/calibration/probe_file.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/util/error.h"

namespace pacml::sim {
namespace {

const char* kColumns =
    "kind,model,batch,seq_len,image_size,layers,precision,attention,checkpointing,optimizer,"
    "builder,seconds,peak_bytes,rate,status\n";

ProbeRun read_text(const std::string& body, const std::string& header = "# pacml_probe: 1\n") {
  std::istringstream in(header + kColumns + body);
  return read_probe(in, "p.csv");
}

std::string error_of(const std::string& body, const std::string& header = "# pacml_probe: 1\n") {
  try {
    read_text(body, header);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ProbeFile, ReadsEveryKindOfRow) {
  const ProbeRun run = read_text(
      "matmul,,8192,,,,bf16,,,,,0.0015,,7.3e14,ok\n"
      "copy,,2147483648,,,,,,,,,0.001,,4.2e12,ok\n"
      "host_op,,2000,,,,,,,,,1.2e-05,,,ok\n"
      "step,gpt2,8,1024,,,bf16,sdpa,no,adamw,transformers,0.081,9600000000,,ok\n"
      "step,gpt2-xl,16,1024,,,bf16,eager,yes,adamw,plain,,,,oom\n"
      "step,resnet50,64,,224,,fp32,,no,adamw,torchvision,0.2,,,ok\n"
      "step,llama3-8b,1,,,,,,,,,,,,skipped\n",
      "# pacml_probe: 1\n# device: NVIDIA H200\n# a comment without a key\n");
  EXPECT_EQ(run.header.at("device"), "NVIDIA H200");
  ASSERT_EQ(run.rows.size(), 7u);
  EXPECT_EQ(run.rows[0].kind, ProbeKind::kMatmul);
  EXPECT_EQ(run.rows[0].precision, Precision::kBf16);
  EXPECT_DOUBLE_EQ(run.rows[0].rate, 7.3e14);
  EXPECT_EQ(run.rows[1].kind, ProbeKind::kCopy);
  EXPECT_DOUBLE_EQ(run.rows[2].seconds, 1.2e-5);
  const ProbeRow& step = run.rows[3];
  EXPECT_EQ(step.model, "gpt2");
  EXPECT_EQ(step.batch, 8);
  EXPECT_EQ(step.seq_len, 1024);
  EXPECT_EQ(step.attention, "sdpa");
  EXPECT_FALSE(step.checkpointing);
  EXPECT_DOUBLE_EQ(step.peak_bytes, 9.6e9);
  EXPECT_EQ(run.where(step), "p.csv:8");
  EXPECT_EQ(run.rows[4].status, ProbeStatus::kOom);
  EXPECT_TRUE(run.rows[4].checkpointing);
  EXPECT_EQ(run.rows[5].image_size, 224);
  EXPECT_LT(run.rows[5].peak_bytes, 0);  // not measured (a CPU run leaves it empty)
  EXPECT_EQ(run.rows[6].status, ProbeStatus::kSkipped);
}

TEST(ProbeFile, ColumnsMayComeInAnyOrder) {
  std::istringstream in(
      "# pacml_probe: 1\n"
      "status,rate,peak_bytes,seconds,builder,optimizer,checkpointing,attention,precision,"
      "layers,image_size,seq_len,batch,model,kind\n"
      "ok,,,0.5,plain,sgd,no,eager,fp32,2,,64,4,bert-base,step\n");
  const ProbeRun run = read_probe(in, "p.csv");
  ASSERT_EQ(run.rows.size(), 1u);
  EXPECT_EQ(run.rows[0].model, "bert-base");
  EXPECT_EQ(run.rows[0].optimizer, "sgd");
  EXPECT_EQ(run.rows[0].layers, 2);
}

TEST(ProbeFile, BadFilesAreRefusedAtFileAndLine) {
  EXPECT_EQ(error_of("", "# device: x\n"),
            "p.csv:2: not a pacml probe file: no '# pacml_probe: 1' line first");
  EXPECT_NE(error_of("", "# pacml_probe: 2\n").find("p.csv:2: pacml_probe"), std::string::npos);
  EXPECT_EQ(error_of("matmul,,8192\n"), "p.csv:3: expected 15 fields, found 3");
  EXPECT_NE(error_of("gemm,,8192,,,,bf16,,,,,0.1,,1e14,ok\n").find("p.csv:3: unknown kind 'gemm'"),
            std::string::npos);
  EXPECT_NE(error_of("matmul,,8192,,,,fp8,,,,,0.1,,1e14,ok\n").find("p.csv:3: unknown precision"),
            std::string::npos);
  EXPECT_EQ(error_of("matmul,,8192,,,,bf16,,,,,0.1,,,ok\n"),
            "p.csv:3: rate must be a positive number (got '')");
  EXPECT_EQ(error_of("step,gpt2,8,1024,,,bf16,sdpa,no,adamw,plain,0,,,ok\n"),
            "p.csv:3: seconds must be a positive number (got '0')");
  EXPECT_NE(
      error_of("step,gpt2,0,1024,,,bf16,sdpa,no,adamw,plain,0.1,,,ok\n").find("p.csv:3: batch"),
      std::string::npos);
  EXPECT_NE(error_of("step,gpt2,8,1024,,,bf16,flash,no,adamw,plain,0.1,,,ok\n")
                .find("p.csv:3: unknown attention 'flash'"),
            std::string::npos);
  EXPECT_NE(error_of("step,gpt2,8,1024,,,bf16,sdpa,no,adamw,plain,0.1,-5,,ok\n").find("p.csv:3"),
            std::string::npos);
  EXPECT_EQ(error_of("step,,8,1024,,,bf16,sdpa,no,adamw,plain,0.1,,,ok\n"),
            "p.csv:3: a step row needs a model");
  EXPECT_NE(error_of("step,gpt2,8,1024,,,bf16,sdpa,no,adamw,plain,nan,,,ok\n").find("p.csv:3"),
            std::string::npos);
}

TEST(ProbeFile, ColumnLineMustBeComplete) {
  std::istringstream missing("# pacml_probe: 1\nkind,model\n");
  try {
    read_probe(missing, "p.csv");
    FAIL() << "a column line without most columns was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "p.csv:2: missing column 'batch'");
  }
  std::istringstream typo(
      "# pacml_probe: 1\nkind,model,batch,seq_len,image_size,layers,"
      "precision,attention,checkpointing,optimizer,builder,second,"
      "peak_bytes,rate,status\n");
  EXPECT_THROW(read_probe(typo, "p.csv"), InputError);
  std::istringstream empty("# pacml_probe: 1\n");
  EXPECT_THROW(read_probe(empty, "p.csv"), InputError);
}

}  // namespace
}  // namespace pacml::sim
