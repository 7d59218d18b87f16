// core/correction: applying a site correction to a predicted step and to a
// time limit, and the correction file (doc/PHYSICAL.md §11).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/correction/correction_file.h"
#include "core/correction/step_correction.h"
#include "core/util/error.h"

namespace pacml {
namespace {

StepCorrection read(const std::string& text) {
  std::istringstream in(text);
  return read_correction(in, "c.yaml");
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(StepCorrection, CorrectsComputeAndExposedCommunicationApart) {
  ParallelPlan plan;
  plan.step_time = 1.0, plan.comp = 0.8, plan.comm = 0.5, plan.overlap = 0.3;
  EXPECT_DOUBLE_EQ(compute_share(plan), 0.8);  // 0.2 s of communication not hidden
  const CorrectionFactor f{2.0, 3.0, 10};
  EXPECT_DOUBLE_EQ(corrected_step_time(f, 1.0, 0.8), 2.0 * 0.8 + 3.0 * 0.2);
  plan.measured = true;  // a measured table's step has no split
  EXPECT_DOUBLE_EQ(compute_share(plan), 1.0);
}

TEST(StepCorrection, TheMostSpecificEntryAnswers) {
  StepCorrection c;
  c.factors[{"*", "*"}] = {1.5, 1.5, 0};
  c.factors[{"gpt2", "*"}] = {1.2, 1.2, 0};
  c.factors[{"gpt2", "H100"}] = {1.1, 1.1, 0};
  EXPECT_DOUBLE_EQ(c.find("gpt2", "H100")->compute, 1.1);
  EXPECT_DOUBLE_EQ(c.find("gpt2", "A100")->compute, 1.2);
  EXPECT_DOUBLE_EQ(c.find("bert", "A100")->compute, 1.5);
  EXPECT_EQ(StepCorrection().find("bert", "A100"), nullptr);
}

TEST(StepCorrection, ATimeLimitIsNeverBelowTheUsersTime) {
  // a correction that says the job is twice as fast: 1000 s → 500 s
  const double corrected = corrected_step_time(CorrectionFactor{0.5, 0.5, 9}, 1000, 1);
  EXPECT_EQ(corrected_time_limit_minutes(corrected, 1.5, 300, 60), 60u);  // --time=60 stays
  EXPECT_EQ(corrected_time_limit_minutes(corrected, 1.5, 300, 0), 18u);   // ⌈1050/60⌉
  // slower than the user thought: pacml's longer limit
  EXPECT_EQ(corrected_time_limit_minutes(6000, 1.5, 300, 60), 155u);
  EXPECT_EQ(corrected_time_limit_minutes(NAN, 1.5, 300, 45), 45u);
  EXPECT_EQ(corrected_time_limit_minutes(INFINITY, 1.5, 300, 0), 0u);
  EXPECT_EQ(corrected_time_limit_minutes(1, 1, 0, 0), 1u);  // at least a minute
}

TEST(CorrectionFile, RoundTripsExactly) {
  StepCorrection c;
  c.version = "site-1";
  c.factors[{"*", "*"}] = {1.7000000000000002, 1.7000000000000002, 400};
  c.factors[{"gpt2", "A100-SXM4-80GB"}] = {1.3, 2.4999999, 37};
  const StepCorrection back = read(correction_file_text(c, {"a test", 8}));
  EXPECT_EQ(back.version, "site-1");
  ASSERT_EQ(back.factors.size(), 2u);
  const CorrectionFactor& g = back.factors.at({"gpt2", "A100-SXM4-80GB"});
  EXPECT_EQ(g.compute, 1.3);
  EXPECT_EQ(g.comm, 2.4999999);
  EXPECT_EQ(g.jobs, 37);
  EXPECT_EQ(back.factors.at({"*", "*"}).compute, 1.7000000000000002);
}

// A name taken from a log may hold any byte; the file keeps it (a NUL once
// cut the name short, so the entry read back under another key: fuzzing).
TEST(CorrectionFile, NamesWithControlBytesQuotesAndBackslashesRoundTrip) {
  StepCorrection c;
  const std::string device = std::string("e\0ntries\"A100\\SXM4\n\x7f", 20);
  c.factors[{"gpt2\t", device}] = {1.3, 2.5, 15};
  const StepCorrection back = read(correction_file_text(c, {"a test", 8}));
  ASSERT_EQ(back.factors.size(), 1u);
  EXPECT_EQ(back.factors.begin()->first.second, device);
  EXPECT_EQ(back.factors.begin()->first.first, "gpt2\t");
}

TEST(CorrectionFile, ErrorsNameTheLine) {
  const std::string head = "pacml_correction: 1\nentries:\n";
  EXPECT_NE(error_of(head + "  - {model: a, compute: 1.2}\n  - {model: a, compute: 1.3}\n")
                .find("c.yaml:4: a second entry for model a"),
            std::string::npos);
  EXPECT_NE(error_of(head + "  - {model: a, compute: 120}\n").find("c.yaml:3:"), std::string::npos);
  EXPECT_NE(error_of(head + "  - {model: a, compute: 1.2, comms: 2}\n").find("comms"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_correction: 1\nversoin: x\nentries: []\n").find("c.yaml:2:"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_correction: 1\n").find("entries"), std::string::npos);
  EXPECT_NE(error_of("pacml_correction: 2\nentries:\n  - {compute: 1}\n").find("c.yaml:1:"),
            std::string::npos);
  // a hand-written entry: comm defaults to compute, model and device to any
  const StepCorrection c = read(head + "  - {compute: 1.25}\n");
  EXPECT_EQ(c.find("x", "y")->comm, 1.25);
  EXPECT_EQ(c.version, "c.yaml");
}

// Every key of `table` whose default is one value (not words like "the
// file's name") at that default, one "key: value" line each; `skip` leaves
// out keys whose default is another key's value.
std::string documented_defaults(const SettingsTable& table, const std::string& indent,
                                const std::string& skip = "") {
  std::string text;
  for (const SettingKey& k : table.keys())
    if (!k.default_text.empty() && k.default_text.find(' ') == std::string::npos && k.name != skip)
      text += indent + k.name + ": \"" + k.default_text + "\"\n";
  return text;
}

// Each key is bound to its member and documents the member's initial value as
// its default: a file and an entry that write every key at its documented
// default read back as the default-built ones.
TEST(CorrectionFile, EachKeysDocumentedDefaultIsItsMembersValue) {
  const std::string entry = documented_defaults(correction_entry_settings(), "    ", "comm");
  EXPECT_NE(entry.find("model: \"*\""), std::string::npos) << entry;
  const StepCorrection c =
      read("pacml_correction: 1\n" + documented_defaults(correction_settings(), "") +
           "entries:\n  - compute: 1.25\n" + entry);
  ASSERT_EQ(c.factors.size(), 1u);
  const auto& [key, factor] = *c.factors.begin();
  EXPECT_EQ(key, std::make_pair(std::string(kAnyName), std::string(kAnyName)));
  EXPECT_EQ(factor.jobs, CorrectionFactor().jobs);
  EXPECT_EQ(factor.comm, factor.compute);  // comm's default: compute
}

}  // namespace
}  // namespace pacml
