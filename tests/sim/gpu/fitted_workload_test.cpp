// Workloads fitted to traces (sim/gpu/fitted_workload.h): the generator
// reproduces the statistics it was fitted with, within sampling error, and
// bad workload files are refused with file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/config/settings_table.h"
#include "core/util/error.h"
#include "sim/gpu/fitted_workload.h"

namespace pacml::gpu {
namespace {

std::shared_ptr<const PhysicalEstimator> dgx() {
  return std::make_shared<const PhysicalEstimator>(load_cluster("dgx-a100-16x8"));
}

FittedWorkload example() {
  std::istringstream in(
      "pacml_workload: 1\n"
      "arrivals_per_hour: [10, 10, 10, 10, 10, 10, 5, 5, 5, 5, 5, 5, 20, 20, 20, 20, 20, 20, 10, "
      "10, 10, 10, 10, 10]\n"
      "models:\n  - {model: resnet50, batch: 128, share: 0.7}\n"
      "  - {model: bert, batch: 64, share: 0.3}\n"
      "iterations: {log_mean: 8, log_sd: 1, min: 10, max: 10000000}\n"
      "gpus: {1: 0.5, 2: 0.25, 8: 0.25}\n"
      "slack: {min: 0.5, max: 1.5}\n");
  return load_workload(in, "example.yaml");
}

// Trace records of generated jobs, as the fit reads them.
std::vector<sim::TraceRecord> as_records(const std::vector<Job>& jobs, DurationModel& durations) {
  std::vector<sim::TraceRecord> records;
  for (const Job& j : jobs) {
    sim::TraceRecord r;
    r.model = j.work->name() == "bert-base" ? "bert" : j.work->name();
    r.batch = j.work->global_batch();
    r.iterations = j.iterations;
    r.gpus = j.requested;
    r.submit = j.submit;
    r.deadline = j.deadline;
    r.duration = run_seconds(durations, j, j.requested);
    records.push_back(r);
  }
  return records;
}

TEST(FittedWorkload, GeneratorReproducesItsFittedStatistics) {
  const FittedWorkload w = example();
  DurationModel durations(dgx());
  const long n = 20000;
  const auto jobs = generate_jobs(w, 1.0, n, 7, durations);
  ASSERT_EQ(static_cast<long>(jobs.size()), n);
  const FittedWorkload refit = fit_workload(as_records(jobs, durations), "generated");
  // Shares: binomial standard error sqrt(p(1-p)/n) ≈ 0.0032 at p = 0.3; allow 4 of them.
  for (const ModelShare& m : refit.models) {
    const double want = m.model == "resnet50" ? 0.7 : 0.3;
    EXPECT_NEAR(m.share, want, 4 * std::sqrt(want * (1 - want) / n)) << m.model;
  }
  EXPECT_NEAR(refit.gpus.at(1), 0.5, 4 * std::sqrt(0.25 / n));
  EXPECT_NEAR(refit.gpus.at(8), 0.25, 4 * std::sqrt(0.1875 / n));
  // Log-normal iterations: the mean's standard error is sd / sqrt(n) = 0.007.
  EXPECT_NEAR(refit.log_iterations_mean, 8, 0.03);
  EXPECT_NEAR(refit.log_iterations_sd, 1, 0.03);
  // Slack uniform on [0.5, 1.5]: the 1st and 99th percentiles.
  EXPECT_NEAR(refit.slack_min, 0.51, 0.01);
  EXPECT_NEAR(refit.slack_max, 1.49, 0.01);
  // Arrivals follow the hour of day: the busy hours (20/h) get 4x the quiet (5/h).
  double busy = 0, quiet = 0;
  for (int h = 12; h < 18; ++h) busy += refit.arrivals_per_hour[h];
  for (int h = 6; h < 12; ++h) quiet += refit.arrivals_per_hour[h];
  EXPECT_NEAR(busy / quiet, 4, 0.3);
  // n jobs at the mean rate of 11.25 jobs/h span about 1778 hours.
  EXPECT_NEAR(jobs.back().submit / 3600, n / 11.25, n / 11.25 * 0.03);
}

TEST(FittedWorkload, LoadScalesTheArrivalRateAndSeedsAreDeterministic) {
  const FittedWorkload w = example();
  DurationModel durations(dgx());
  const auto base = generate_jobs(w, 1.0, 2000, 3, durations);
  const auto twice = generate_jobs(w, 2.0, 2000, 3, durations);
  EXPECT_NEAR(twice.back().submit / base.back().submit, 0.5, 0.05);
  const auto again = generate_jobs(w, 1.0, 2000, 3, durations);
  for (size_t i = 0; i < base.size(); ++i) {
    ASSERT_EQ(base[i].submit, again[i].submit);
    ASSERT_EQ(base[i].iterations, again[i].iterations);
    ASSERT_EQ(base[i].deadline, again[i].deadline);
  }
}

TEST(FittedWorkload, WritesWhatItReads) {
  const FittedWorkload w = example();
  std::ostringstream out;
  write_workload(out, w);
  std::istringstream in(out.str());
  const FittedWorkload back = load_workload(in, "written");
  EXPECT_EQ(back.models.size(), 2u);
  EXPECT_EQ(back.arrivals_per_hour, w.arrivals_per_hour);
  EXPECT_EQ(back.gpus, w.gpus);
  EXPECT_DOUBLE_EQ(back.log_iterations_sd, 1);
}

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    load_workload(in, "w.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FittedWorkload, RefusesBadFilesNamingTheLine) {
  std::string ok =
      "pacml_workload: 1\narrivals_per_hour: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
      "models:\n  - {model: resnet50, batch: 64, share: 1}\n"
      "iterations: {log_mean: 8, log_sd: 1, min: 1, max: 100}\ngpus: {1: 1}\n";
  EXPECT_EQ(error_of(ok), "(no error)");
  EXPECT_NE(error_of(ok + "burst: 3\n").find("w.yaml:7: unknown fitted workload file key 'burst'"),
            std::string::npos);
  std::string bad = ok;
  bad.replace(bad.find("share: 1"), 8, "share: 0.5");
  EXPECT_NE(error_of(bad).find("model shares must add up to 1"), std::string::npos);
  bad = ok;
  bad.replace(bad.find("resnet50"), 8, "alphafold");
  EXPECT_NE(error_of(bad).find("w.yaml:4: unknown model 'alphafold'"), std::string::npos);
  bad = ok;
  bad.replace(bad.find("[1,1,"), 4, "[");
  EXPECT_NE(error_of(bad).find("24 rates"), std::string::npos);
  bad = ok;
  bad.replace(bad.find("max: 100"), 8, "max: 0");
  EXPECT_NE(error_of(bad).find("w.yaml:5"), std::string::npos);
  EXPECT_NE(error_of("pacml_workload: 2\n").find("pacml_workload: 1"), std::string::npos);
}

// Each key with a default is bound to its member and documents the member's
// initial value: a file that writes them at their documented defaults (the
// slack's "[min, max]" as its mapping) reads back as a default-built one.
TEST(FittedWorkload, EachKeysDocumentedDefaultIsItsMembersValue) {
  std::string text =
      "pacml_workload: 1\narrivals_per_hour: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
      "models:\n  - {model: resnet50, batch: 64, share: 1}\n"
      "iterations: {log_mean: 8, log_sd: 1, min: 1, max: 100}\ngpus: {1: 1}\n";
  for (const SettingKey& k : fitted_params_settings().keys())
    if (!k.default_text.empty() && k.default_text.find(' ') == std::string::npos)
      text += k.name + ": \"" + k.default_text + "\"\n";
  const YAML::Node slack = YAML::Load(fitted_params_settings().key("slack").default_text);
  ASSERT_TRUE(slack.IsSequence() && slack.size() == 2);
  text += "slack: {min: " + slack[0].Scalar() + ", max: " + slack[1].Scalar() + "}\n";
  EXPECT_NE(text.find("jobs_fitted: \"0\""), std::string::npos) << text;
  std::istringstream in(text);
  const FittedWorkload read = load_workload(in, "w.yaml"), d;
  EXPECT_EQ(read.jobs_fitted, d.jobs_fitted);
  EXPECT_EQ(read.slack_min, d.slack_min);
  EXPECT_EQ(read.slack_max, d.slack_max);
}

// A graph entry's profiled_batch defaults to the member's value (the zoo's
// profiling batch), not to the entry's batch, as the docs once said.
TEST(FittedWorkload, EachModelKeysDocumentedDefaultIsItsMembersValue) {
  std::string entry = "  - graph: " + std::string(PACML_SOURCE_DIR) +
                      "/tests/fixtures/tiny.txt\n    batch: 128\n    share: 1\n";
  const std::string plain = entry;
  for (const SettingKey& k : fitted_model_settings().keys())
    if (!k.default_text.empty()) entry += "    " + k.name + ": \"" + k.default_text + "\"\n";
  EXPECT_NE(entry.find("profiled_batch: \"64\""), std::string::npos) << entry;
  const std::string head =
      "pacml_workload: 1\narrivals_per_hour: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
      "models:\n";
  const std::string tail = "iterations: {log_mean: 8, log_sd: 1, min: 1, max: 100}\ngpus: {1: 1}\n";
  std::istringstream with_defaults(head + entry + tail), without(head + plain + tail);
  const ModelShare d;
  EXPECT_EQ(load_workload(with_defaults, "w.yaml").models.at(0).profiled_batch, d.profiled_batch);
  EXPECT_EQ(load_workload(without, "w.yaml").models.at(0).profiled_batch, d.profiled_batch);
}

TEST(FittedWorkload, ResizesTransformersAndNamesTheLineOfAShapeThatCannotBuild) {
  const std::string head =
      "pacml_workload: 1\narrivals_per_hour: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
      "models:\n";
  const std::string tail = "iterations: {log_mean: 8, log_sd: 1, min: 1, max: 100}\ngpus: {1: 1}\n";
  std::istringstream in(
      head +
      "  - {model: gpt2, batch: 8, share: 0.5, layers: 4, hidden: 256, heads: 4}\n"
      "  - {model: gpt2, batch: 8, share: 0.5}\n" +
      tail);
  const FittedWorkload w = load_workload(in, "w.yaml");
  ASSERT_EQ(w.models.size(), 2u);
  EXPECT_EQ(w.models[0].shape.hidden, 256);
  DurationModel durations(dgx());
  bool small = false, full = false;
  for (const Job& j : generate_jobs(w, 1, 40, 1, durations)) {
    small = small || j.work->transformer().hidden == 256;
    full = full || j.work->transformer().hidden == 768;
  }
  EXPECT_TRUE(small && full) << "both shapes are drawn, as different jobs";
  std::ostringstream out;
  write_workload(out, w);
  EXPECT_NE(out.str().find("layers: 4, hidden: 256, heads: 4"), std::string::npos) << out.str();
  const std::string indivisible =
      head + "  - {model: gpt2, batch: 8, share: 1, hidden: 250, heads: 4}\n" + tail;
  EXPECT_NE(error_of(indivisible).find("w.yaml:4"), std::string::npos) << error_of(indivisible);
}

TEST(FittedWorkload, AProfiledGraphFileIsAJobKindAndABadOneNamesItsLine) {
  const std::string head =
      "pacml_workload: 1\narrivals_per_hour: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
      "models:\n";
  const std::string tail = "iterations: {log_mean: 8, log_sd: 1, min: 1, max: 100}\ngpus: {1: 1}\n";
  const std::string tiny = std::string(PACML_SOURCE_DIR) + "/tests/fixtures/tiny.txt";
  std::istringstream in(head + "  - {graph: " + tiny +
                        ", profiled_batch: 32, batch: 64, share: 1}\n" + tail);
  const FittedWorkload w = load_workload(in, "w.yaml");
  ASSERT_EQ(w.models.size(), 1u);
  EXPECT_EQ(w.models[0].graph, tiny);
  DurationModel durations(dgx());
  const std::vector<Job> jobs = generate_jobs(w, 1, 5, 1, durations);
  ASSERT_EQ(jobs.size(), 5u);
  EXPECT_TRUE(jobs[0].work->from_profile());
  EXPECT_EQ(jobs[0].work->global_batch(), 64);
  EXPECT_EQ(jobs[0].work->profiled_batch(), 32);
  const std::string missing =
      head + "  - {graph: /nonexistent/g.txt, batch: 64, share: 1}\n" + tail;
  EXPECT_NE(error_of(missing).find("w.yaml:4"), std::string::npos) << error_of(missing);
}

}  // namespace
}  // namespace pacml::gpu
