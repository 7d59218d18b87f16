#include "sim/experiment/experiment_keys.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/experiment/experiment.h"

namespace pacml::sim {
namespace {

// Every key of `table` whose default is one value (not words like "the
// workload's") at that default, one "key: value" line each, indented; keys
// of the other kind of experiment and those in `skip` are left out.
std::string documented_defaults(const SettingsTable& table, const std::string& indent,
                                const std::string& active_case = "",
                                const std::set<std::string>& skip = {}) {
  std::string text;
  for (const SettingKey& k : table.keys())
    if (!k.default_text.empty() && k.default_text.find(' ') == std::string::npos &&
        (k.only_when.empty() || k.only_when == active_case) && !skip.count(k.name))
      text += indent + k.name + ": \"" + k.default_text + "\"\n";
  return text;
}

// Each key is bound to its member and documents the member's initial value as
// its default: a file that writes every key at its documented default reads
// back as a default-built ExperimentSpec.
TEST(ExperimentKeys, EachKeysDocumentedDefaultIsItsMembersValue) {
  const ExperimentSpec d;
  const std::string paper = "pacml_experiment: 1\n" +
                            documented_defaults(experiment_settings(), "", kPaperStyleExperiment);
  EXPECT_NE(paper.find("horizon: \"1e6\""), std::string::npos) << paper;
  EXPECT_NE(paper.find("topology: \"4x4x2\""), std::string::npos) << paper;

  const ExperimentSpec synthetic =
      parse_experiment(paper + "seeds:\n" + documented_defaults(seed_range_settings(), "  ") +
                           "workload:\n  graphs: [alexnet]\n" +
                           documented_defaults(synthetic_workload_settings(), "  "),
                       "x.yaml", ".");
  EXPECT_EQ(synthetic.name, d.name);
  EXPECT_EQ(synthetic.profile, d.profile);
  EXPECT_EQ(RampTopology(synthetic.topology).shape(), RampTopology(d.topology).shape());
  EXPECT_EQ(synthetic.steps, d.steps);
  EXPECT_EQ(synthetic.horizon, d.horizon);
  EXPECT_EQ(synthetic.threads, d.threads);
  ASSERT_EQ(synthetic.betas.size(), 1u);
  EXPECT_EQ(synthetic.betas[0].label(), kDefaultBeta);
  EXPECT_EQ(synthetic.seeds, std::vector<std::uint64_t>{0});  // {first, count} at theirs
  EXPECT_EQ(synthetic.workload_type, d.workload_type);
  EXPECT_EQ(synthetic.interarrival, d.interarrival);
  EXPECT_EQ(synthetic.exponential, d.exponential);
  EXPECT_EQ(synthetic.first_arrival, d.first_arrival);
  EXPECT_EQ(synthetic.max_jobs, d.max_jobs);

  const ExperimentSpec trace =
      parse_experiment(paper + "workload:\n  type: trace\n  format: swf\n  path: jobs.swf\n" +
                           documented_defaults(trace_workload_settings(), "  "),
                       "x.yaml", ".");
  EXPECT_EQ(trace.workload_type, "trace");
  EXPECT_EQ(trace.mapping.unknown_model, d.mapping.unknown_model);
  EXPECT_EQ(trace.mapping.time_scale, d.mapping.time_scale);
  EXPECT_EQ(trace.mapping.gpu_scale, d.mapping.gpu_scale);
  EXPECT_EQ(trace.mapping.beta_rule, d.mapping.beta_rule);
  EXPECT_EQ(trace.mapping.steps_rule, d.mapping.steps_rule);
  EXPECT_EQ(trace.mapping.iteration_scale, d.mapping.iteration_scale);
  EXPECT_EQ(trace.mapping.max_jobs, d.mapping.max_jobs);
  EXPECT_EQ(trace.skip_bad, d.skip_bad);

  // A fitted workload's `beta` applies only with `deadline: beta`, not its default.
  const ExperimentSpec fitted = parse_experiment(
      "pacml_experiment: 1\n" + documented_defaults(experiment_settings(), "", kFittedExperiment) +
          "workload:\n  kind: fitted\n  params: elasticflow-01-05\n" +
          documented_defaults(fitted_workload_settings(), "  ", "", {"beta"}),
      "x.yaml", ".");
  EXPECT_EQ(fitted.world, World::kGpu);
  EXPECT_EQ(fitted.fitted.cluster, d.fitted.cluster);
  EXPECT_EQ(fitted.fitted.admissions, d.fitted.admissions);
  EXPECT_EQ(fitted.fitted.order, d.fitted.order);
  EXPECT_EQ(fitted.fitted.load, d.fitted.load);
  EXPECT_EQ(fitted.fitted.jobs, d.fitted.jobs);
  EXPECT_FALSE(fitted.fitted.beta_deadline);
  // ... and with it, its default is the paper's β distribution A.
  const ExperimentSpec beta = parse_experiment(
      "pacml_experiment: 1\nworkload: {kind: fitted, params: elasticflow-01-05, deadline: beta}\n",
      "x.yaml", ".");
  ASSERT_TRUE(beta.fitted.beta_deadline);
  EXPECT_EQ(beta.fitted.beta_deadline->label(), kDefaultBeta);
}

}  // namespace
}  // namespace pacml::sim
