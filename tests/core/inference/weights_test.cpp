// The weights file: round trip, and refusal of corrupt, truncated and
// mismatched files with clear messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/inference/learned_model.h"
#include "core/inference/learned_policy.h"
#include "tests/core/learning_test_util.h"

namespace pacml {
namespace {

using inference::WeightsFile;

features::Normalisers some_normalisers() {
  features::Normalisers n;
  n.ops = {46, 142};
  n.edges = {47, 159};
  n.jct_seq = {4470.8, 38000.15};
  n.jct_max = {447.08, 38000.15};
  n.beta = {0.1, 1};
  n.op_memory = {1e9, 2e10};
  n.edge_size = {1e9, 2e10};
  n.steps = {50, 50};
  return n;
}

WeightsFile sample() {
  return testing::random_weights(3, "reference", some_normalisers());
}

std::string message_of(const std::string& bytes) {
  try {
    inference::LearnedModel(inference::parse_weights(bytes, "m.pacw"), "m.pacw");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(WeightsFile, RoundTripIsExact) {
  const WeightsFile w = sample();
  const std::string bytes = inference::serialize_weights(w);
  const WeightsFile r = inference::parse_weights(bytes, "mem");
  EXPECT_EQ(r.metadata, w.metadata);
  ASSERT_EQ(r.tensors.size(), w.tensors.size());
  for (size_t i = 0; i < w.tensors.size(); ++i) {
    EXPECT_EQ(r.tensors[i].name, w.tensors[i].name);
    EXPECT_EQ(r.tensors[i].shape, w.tensors[i].shape);
    EXPECT_EQ(r.tensors[i].data, w.tensors[i].data);
  }
  EXPECT_EQ(inference::serialize_weights(r), bytes);
  const std::string path = ::testing::TempDir() + "/roundtrip.pacw";
  inference::write_weights_file(path, w);
  const auto model = inference::LearnedModel::load(path);
  EXPECT_EQ(model->profile(), "reference");
  EXPECT_TRUE(model->normalisers() == some_normalisers());
  EXPECT_EQ(model->metadata()["git_revision"], "test");
  std::remove(path.c_str());
}

TEST(WeightsFile, TruncatedAtEveryLengthIsRejected) {
  const std::string bytes = inference::serialize_weights(sample());
  for (size_t len = 0; len < bytes.size(); len += (len < 200 ? 1 : 97)) {
    const std::string msg = message_of(bytes.substr(0, len));
    EXPECT_FALSE(msg.empty()) << len;
    EXPECT_NE(msg.find("m.pacw"), std::string::npos) << msg;
  }
  EXPECT_NE(message_of(bytes.substr(0, bytes.size() - 1)).find("m.pacw"), std::string::npos);
  EXPECT_NE(message_of(bytes.substr(0, 100)).find("truncated"), std::string::npos);
}

TEST(WeightsFile, CorruptBytesAreRejected) {
  const std::string bytes = inference::serialize_weights(sample());
  // A flipped bit anywhere after the header: checksum (or a structural error).
  for (size_t pos = 12; pos < bytes.size(); pos += 131) {
    std::string b = bytes;
    b[pos] = static_cast<char>(b[pos] ^ 0x10);
    EXPECT_FALSE(message_of(b).empty()) << pos;
  }
  std::string b = bytes;
  b[b.size() - 9] ^= 1;  // inside the last tensor's data (v2.bias, 4 bytes)
  EXPECT_NE(message_of(b).find("checksum"), std::string::npos) << message_of(b);
  EXPECT_NE(message_of(bytes + "x").find("m.pacw"), std::string::npos);
  EXPECT_NE(message_of("GIF89a and more bytes").find("bad magic"), std::string::npos);
}

TEST(WeightsFile, OtherFormatVersionIsRejected) {
  std::string b = inference::serialize_weights(sample());
  b[8] = 2;  // u32 version, little endian
  EXPECT_NE(message_of(b).find("format version 2 is not supported"), std::string::npos)
      << message_of(b);
}

TEST(WeightsFile, MismatchedMetadataIsRejected) {
  auto expect = [](WeightsFile w, const std::string& needle) {
    const std::string msg = message_of(inference::serialize_weights(w));
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  };
  WeightsFile w = sample();
  w.metadata["feature_schema"]["version"] = 99;
  expect(w, "feature schema mismatch");
  w = sample();
  w.metadata["feature_schema"]["graph"][3] = "something_else";
  expect(w, "feature schema mismatch");
  w = sample();
  w.metadata["actions"] = {0, 1, 2, 4, 8, 16};
  expect(w, "action set mismatch");
  w = sample();
  w.metadata["architecture"]["kind"] = "transformer";
  expect(w, "unknown architecture");
  w = sample();
  w.metadata.erase("normalisers");
  expect(w, "lacks 'normalisers'");
  w = sample();
  w.metadata["profile"] = "quantum";
  expect(w, "profile");
  w = sample();
  w.tensors.pop_back();
  expect(w, "lacks tensor 'v2.bias'");
  w = sample();
  w.tensors[0].shape = {w.tensors[0].shape[0] - 1};
  w.tensors[0].data.pop_back();
  expect(w, "has shape");
  w = sample();
  w.tensors.push_back({"extra.weight", {1}, {0.f}});
  expect(w, "unexpected tensor 'extra.weight'");
  w = sample();
  w.tensors[1].data[0] = NAN;
  expect(w, "NaN");
}

TEST(WeightsFile, MissingFileAndProfileMismatch) {
  EXPECT_THROW(inference::make_learned_policy("pacml:/nonexistent/x.pacw", "--policy"), InputError);
  try {
    inference::make_learned_policy("pacml:nosuchmodel", "--policy", {"/nonexistent"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchmodel.pacw"), std::string::npos) << e.what();
  }
  const std::string path = ::testing::TempDir() + "/ref.pacw";
  inference::write_weights_file(path, sample());
  auto policy = inference::make_learned_policy("pacml:" + path, "--policy");
  EXPECT_EQ(policy->name(), "pacml:" + path);
  const auto graphs = testing::real_graphs();
  const JctEstimator est(RampTopology::parse("4x4x2"), Profile::physical());
  const ClusterState cluster(est.topology());
  const std::vector<bool> mask(17, true);
  Rng rng(1);
  DecisionContext ctx{*graphs[0], 0.5, cluster, mask, est, nullptr, rng};
  try {
    policy->choose(ctx);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'reference' profile"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pacml
