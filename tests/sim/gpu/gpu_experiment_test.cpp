// Fitted-workload experiments (workload: {kind: fitted, ...}): parsing, the
// built-in default experiment, and runs (sim/gpu/evaluation.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/error.h"
#include "sim/experiment/experiment.h"
#include "sim/gpu/evaluation.h"
#include "sim/gpu/fitted_workload.h"

namespace pacml::gpu {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    sim::parse_experiment(yaml, "x.yaml", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string file_text(const std::string& relative) {
  std::ifstream in(std::string(PACML_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << relative << " missing";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A default-style experiment small enough for a unit test.
const char* kSmallFitted =
    "pacml_experiment: 1\n"
    "name: small-fitted\n"
    "cluster: ramp-a100-16x8\n"
    "workload: {kind: fitted, params: elasticflow-01-05, load: 3, jobs: 150}\n"
    "admission: both\n"
    "order: fifo\n"
    "policies: [requested, min_feasible, random]\n"
    "seeds: 2\n";

TEST(FittedExperiment, ParsesTheWorkloadKeyAndTheClusterKeys) {
  const sim::ExperimentSpec s = sim::parse_experiment(kSmallFitted, "x.yaml", ".");
  ASSERT_EQ(s.world, World::kGpu);
  EXPECT_EQ(s.fitted.params, "elasticflow-01-05");
  EXPECT_EQ(s.fitted.load, 3);
  EXPECT_EQ(s.fitted.jobs, 150);
  EXPECT_EQ(s.fitted.cluster, "ramp-a100-16x8");
  EXPECT_EQ(s.fitted.admissions,
            (std::vector<Admission>{Admission::kImmediate, Admission::kQueue}));
  EXPECT_EQ(s.fitted.order, QueueOrder::kSubmission);
  EXPECT_EQ(s.policies, (std::vector<std::string>{"requested", "min_feasible", "random"}));
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{0, 1}));
  const sim::ExperimentSpec q = sim::parse_experiment(
      "pacml_experiment: 1\nworkload: {kind: fitted, params: elasticflow-01-05}\n"
      "admission: queue\npolicies: fixed:8\n",
      "x.yaml", ".");
  EXPECT_EQ(q.fitted.admissions, (std::vector<Admission>{Admission::kQueue}));
  EXPECT_EQ(q.fitted.load, 1);
  EXPECT_EQ(q.policies, (std::vector<std::string>{"fixed:8"}));
}

// `world:` names the world; absent, the workload's says it; the two must agree.
TEST(FittedExperiment, WorldIsSaidOnceAndAgreesWithTheWorkload) {
  EXPECT_EQ(sim::parse_experiment(std::string(kSmallFitted) + "world: gpu\n", "x.yaml", ".").world,
            World::kGpu);
  const std::string paper =
      "pacml_experiment: 1\nworkload: {type: synthetic, graphs: [alexnet], max_jobs: 3}\n";
  EXPECT_EQ(sim::parse_experiment(paper, "p.yaml", ".").world, World::kPaper);
  EXPECT_EQ(sim::parse_experiment(paper + "world: paper\n", "p.yaml", ".").world, World::kPaper);
  try {
    sim::parse_experiment(paper + "world: gpu\n", "p.yaml", ".");
    FAIL() << "world: gpu with a paper-style workload was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("p.yaml:3: world: gpu replays jobs on a GPU cluster"),
              std::string::npos)
        << e.what();
  }
  try {
    sim::parse_experiment(std::string(kSmallFitted) + "world: paper\n", "x.yaml", ".");
    FAIL() << "world: paper with a fitted workload was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.yaml:9: world: paper runs the paper's RAMP episodes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(sim::parse_experiment(paper + "world: ramp\n", "p.yaml", "."), InputError);
}

TEST(FittedExperiment, ResolvesFilesFromTheExperimentsDirectory) {
  const sim::ExperimentSpec s = sim::parse_experiment(
      "pacml_experiment: 1\ncluster: ../clusters/dgx-a100-4x8.yaml\n"
      "workload: {kind: fitted, params: ../workloads/elasticflow-01-05.yaml}\n",
      "e.yaml", std::string(PACML_SOURCE_DIR) + "/contrib/experiments");
  // The same file, however the source directory is spelt (a build configured
  // with ../configure has PACML_SOURCE_DIR = BUILD/..).
  namespace fs = std::filesystem;
  const fs::path top = fs::weakly_canonical(PACML_SOURCE_DIR);
  EXPECT_EQ(fs::weakly_canonical(s.fitted.cluster), top / "contrib/clusters/dgx-a100-4x8.yaml");
  EXPECT_EQ(fs::weakly_canonical(s.fitted.params),
            top / "contrib/workloads/elasticflow-01-05.yaml");
}

TEST(FittedExperiment, AThroughputTableOverridesTheEstimatorsStepTime) {
  char tmpl[] = "/tmp/pacml-table-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  std::ofstream(dir + "/resnet50.csv") << "global_batch_size,1,2\n128,10,19\n";
  const sim::ExperimentSpec s =
      sim::parse_experiment("pacml_experiment: 1\nthroughput_table: " + std::string(dir).substr(5) +
                                "\nworkload: {kind: fitted, params: elasticflow-01-05}\n",
                            "e.yaml", "/tmp");  // relative to the experiment's directory
  EXPECT_EQ(s.fitted.throughput_table, dir);
  ZooOptions options;
  options.batch = 128;
  const auto job = ParallelJob::from_zoo("resnet50", options);
  EXPECT_DOUBLE_EQ(fitted_estimator(s)->plan(*job, 2, Strategy::kAuto).step_time, 1.0 / 19);
  EXPECT_NE(fitted_estimator(sim::parse_experiment(kSmallFitted, "x.yaml", "."))
                ->plan(*job, 2, Strategy::kAuto)
                .step_time,
            1.0 / 19);
  std::remove((dir + "/resnet50.csv").c_str());
  ::rmdir(dir.c_str());
}

TEST(FittedExperiment, BadKeysAndValuesNameFileAndLine) {
  const std::string head = "pacml_experiment: 1\n";
  EXPECT_NE(error_of(head + "workload: {kind: fitted, params: elasticflow-01-05, lod: 2}\n")
                .find("x.yaml:2: unknown fitted workload key 'lod'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "workload: {kind: fited, params: elasticflow-01-05}\n")
                .find("x.yaml:2: workload.kind must be fitted"),
            std::string::npos);
  EXPECT_NE(error_of(head + "workload: {kind: fitted}\n").find("needs 'params'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "workload: {kind: fitted, params: elasticflow-01-05, load: 0}\n")
                .find("x.yaml:2"),
            std::string::npos);
  const std::string fitted = head + "workload: {kind: fitted, params: elasticflow-01-05}\n";
  EXPECT_NE(error_of(fitted + "admission: later\n").find("x.yaml:3: admission must be"),
            std::string::npos);
  EXPECT_NE(error_of(fitted + "order: lifo\n").find("x.yaml:3: queue order must be"),
            std::string::npos);
  EXPECT_NE(error_of(fitted + "policies: [requested, para_min]\n").find("x.yaml:3"),
            std::string::npos);
  // The paper's keys mean nothing on a GPU cluster.
  EXPECT_NE(
      error_of(fitted + "beta: [A]\n")
          .find("x.yaml:3: 'beta' applies only with a paper-style workload (type: synthetic or "
                "trace), not with workload: {kind: fitted}"),
      std::string::npos);
  // ... and the GPU keys nothing in the paper's experiments.
  EXPECT_NE(error_of(head + "workload: {graphs: [alexnet]}\ncluster: ramp-a100-16x8\n")
                .find("x.yaml:3: 'cluster' applies only with workload: {kind: fitted}"),
            std::string::npos);
}

TEST(FittedExperiment, DeadlinesFromSlackOrFromTheBetaRule) {
  const std::string head =
      "pacml_experiment: 1\nworkload: {kind: fitted, params: elasticflow-01-05";
  EXPECT_FALSE(sim::parse_experiment(head + "}\n", "x.yaml", ".").fitted.beta_deadline);
  EXPECT_EQ(sim::parse_experiment(head + ", deadline: beta}\n", "x.yaml", ".")
                .fitted.beta_deadline->label(),
            "A");
  EXPECT_EQ(sim::parse_experiment(head + ", deadline: beta, beta: C}\n", "x.yaml", ".")
                .fitted.beta_deadline->label(),
            "C");
  EXPECT_NE(error_of(head + ", deadline: soon}\n").find("x.yaml:2: workload.deadline must be"),
            std::string::npos);
  EXPECT_NE(error_of(head + ", beta: C}\n").find("needs 'deadline: beta'"), std::string::npos);
  EXPECT_NE(error_of(head + ", deadline: beta, beta: Z}\n").find("x.yaml:2"), std::string::npos);
  // The β rule: deadline = submit + β × the run time on one GPU (where the job fits on one).
  const sim::ExperimentSpec s = sim::default_experiment();
  DurationModel durations(fitted_estimator(s));
  const FittedWorkload w = load_workload_named("elasticflow-01-05");
  const std::vector<Job> jobs =
      generate_jobs(w, 1, 200, 7, durations, sim::BetaSpec::parse("fixed(0.5)"));
  int checked = 0;
  for (const Job& job : jobs) {
    const double sequential = run_seconds(durations, job, 1);
    if (!std::isfinite(sequential)) continue;
    EXPECT_NEAR(job.deadline - job.submit, 0.5 * sequential, 1e-6 * sequential) << job.id;
    ++checked;
  }
  EXPECT_GT(checked, 100);
  // Slack deadlines stay what they were: the same jobs without a β rule.
  const std::vector<Job> slack = generate_jobs(w, 1, 200, 7, durations);
  EXPECT_EQ(slack.front().submit, jobs.front().submit);
  EXPECT_NE(slack.front().deadline, jobs.front().deadline);
}

TEST(FittedExperiment, PaperStyleCommandsRefuseIt) {
  EXPECT_THROW(sim::Experiment(sim::parse_experiment(kSmallFitted, "x.yaml", ".")), InputError);
}

TEST(FittedExperiment, BuiltInDefaultMatchesTheShippedFile) {
  EXPECT_EQ(file_text("contrib/experiments/default.yaml"), sim::default_experiment_yaml());
  const sim::ExperimentSpec s = sim::default_experiment();
  EXPECT_EQ(s.name, "default");
  ASSERT_EQ(s.world, World::kGpu);
  EXPECT_EQ(s.fitted.cluster, "ramp-a100-16x8");
  EXPECT_EQ(s.fitted.admissions.size(), 2u);
  EXPECT_EQ(s.policies.size(), 7u);
  EXPECT_EQ(s.policies[0], "pacml:default");  // the learned GPU policy, then every baseline
  EXPECT_EQ(s.policies[1], "capped:0.3");     // the baseline that may turn jobs away too
  EXPECT_GE(s.seeds.size(), 3u);
  EXPECT_EQ(fitted_estimator(s)->cluster().num_gpus(), 128);
}

TEST(FittedExperiment, BuiltInPaperZooMatchesTheShippedFile) {
  EXPECT_EQ(file_text("contrib/experiments/paper-zoo.yaml"), sim::paper_zoo_experiment_yaml());
  const sim::ExperimentSpec s = sim::paper_zoo_experiment();
  EXPECT_EQ(s.name, "paper-zoo");
  sim::Experiment e(s);  // needs nothing outside the repository
  EXPECT_EQ(e.grid().size(), s.policies.size() * s.betas.size() * s.seeds.size());
}

TEST(FittedExperiment, SameSeedsGiveIdenticalNumbers) {
  const sim::ExperimentSpec s = sim::parse_experiment(kSmallFitted, "x.yaml", ".");
  const Evaluation a = run_experiment(s, fitted_estimator(s));
  const Evaluation b = run_experiment(s, fitted_estimator(s));
  ASSERT_EQ(a.runs.size(), 2u * 3u * 2u);
  ASSERT_EQ(a.runs.size(), b.runs.size());
  for (size_t i = 0; i < a.runs.size(); ++i) {
    EXPECT_EQ(summary_to_json(summarize_runs({a.runs[i]}).front()),
              summary_to_json(summarize_runs({b.runs[i]}).front()))
        << i;
    EXPECT_EQ(a.runs[i].stats.arrived, 150);
  }
  // Seeds differ: the two seeds of a group draw different jobs.
  EXPECT_NE(a.runs[0].stats.gpu_hours, a.runs[1].stats.gpu_hours);
  ASSERT_EQ(a.groups.size(), 6u);
  EXPECT_EQ(a.groups[0].policy, "requested");
  EXPECT_EQ(a.groups[0].admission, "immediate");
  EXPECT_EQ(a.groups[0].seeds, 2);
  for (const char* key : {"blocking_rate_mean", "deadline_met_rate_mean", "unservable_rate_mean",
                          "gpu_hours_mean", "queue_delay_mean", "deadline_met_rate_ci95"})
    EXPECT_TRUE(summary_to_json(a.groups[0]).contains(key)) << key;
}

}  // namespace
}  // namespace pacml::gpu
