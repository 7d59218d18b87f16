#include "sim/experiment/experiment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "sim/experiment/evaluation.h"
#include "sim/experiment/summary.h"
#include "tests/test_data.h"

namespace pacml::sim {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_experiment(yaml, "x.yaml", ".");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kSmall =
    "pacml_experiment: 1\n"
    "name: small\n"
    "profile: reference\n"
    "topology: 2x2x2\n"
    "horizon: 20000\n"
    "workload:\n"
    "  type: synthetic\n"
    "  graphs: [alexnet, gnmt]\n"
    "  interarrival: 500\n"
    "beta: [A, D]\n"
    "policies: [para_max, random]\n"
    "seeds: 3\n";

TEST(Experiment, ParsesTheSchema) {
  const ExperimentSpec s = parse_experiment(kSmall, "x.yaml", ".");
  EXPECT_EQ(s.name, "small");
  EXPECT_EQ(s.profile, "reference");
  EXPECT_EQ(s.topology.groups, 2);
  EXPECT_EQ(s.horizon, 20000);
  EXPECT_EQ(s.graphs.size(), 2u);
  EXPECT_EQ(s.betas.size(), 2u);
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST(Experiment, BadInputNamesFileAndLine) {
  EXPECT_NE(error_of(std::string(kSmall) + "colour: red\n")
                .find("x.yaml:13: unknown experiment key 'colour'"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          "pacml_experiment: 1\nworkload: {type: synthetic, graphs: [alexnet], interarival: 5}\n")
          .find("unknown synthetic workload key 'interarival'"),
      std::string::npos);
  EXPECT_NE(error_of("name: x\n").find("pacml_experiment"), std::string::npos);
  EXPECT_NE(error_of("pacml_experiment: 1\nprofile: fast\nworkload: {graphs: [alexnet]}\n")
                .find("x.yaml:2"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_experiment: 1\nworkload: {graphs: [alexnet]}\npolicies: [best]\n")
                .find("unknown policy"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_experiment: 1\nworkload: {graphs: [alexnet], interarrival: -1}\n")
                .find("positive"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_experiment: [1\n").find("x.yaml"), std::string::npos);
  EXPECT_NE(error_of("pacml_experiment: 1\nhorizon: inf\nworkload: {graphs: [alexnet]}\n")
                .find("x.yaml:2: horizon: inf with a synthetic workload never ends"),
            std::string::npos);
  EXPECT_EQ(error_of("pacml_experiment: 1\nhorizon: inf\nworkload: {graphs: [alexnet], "
                     "max_jobs: 10}\n"),
            "");
  EXPECT_THROW(Experiment(parse_experiment(
                   "pacml_experiment: 1\nworkload: {graphs: [no_such_model]}\n", "x", ".")),
               InputError);
  EXPECT_THROW(Experiment(parse_experiment(
                   "pacml_experiment: 1\nworkload: {graphs: [missing/g.txt]}\n", "x", ".")),
               InputError);
}

TEST(Experiment, SeedLists) {
  EXPECT_EQ(parse_seed_list("3", "s"), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(parse_seed_list("4,9", "s"), (std::vector<std::uint64_t>{4, 9}));
  EXPECT_EQ(parse_seed_list("10..12", "s"), (std::vector<std::uint64_t>{10, 11, 12}));
  EXPECT_THROW(parse_seed_list("x", "s"), InputError);
}

TEST(Experiment, PaperFileLoadsWhenSharedDataExists) {
  PACML_REQUIRE_FILE(pacml::testing::pipedream_path("alexnet"));
  setenv("PACML_SHARED_DATA", pacml::testing::shared_data_dir().c_str(), 1);
  // The experiment lists the shipped learned policy: loading checks it.
  setenv("PACML_MODELS_DIR", (std::string(PACML_SOURCE_DIR) + "/contrib/models").c_str(), 1);
  const ExperimentSpec s =
      load_experiment_file(std::string(PACML_SOURCE_DIR) + "/contrib/experiments/paper.yaml");
  unsetenv("PACML_MODELS_DIR");
  EXPECT_EQ(s.policies.front(), "pacml:reference");
  EXPECT_EQ(s.profile, "reference");
  EXPECT_EQ(s.horizon, 1e6);
  EXPECT_EQ(s.interarrival, 1000);
  EXPECT_EQ(s.betas.size(), 4u);
  EXPECT_GE(s.seeds.size(), 10u);
  Experiment e(s);
  EXPECT_EQ(e.workload(0)->graphs().size(), 5u);
}

TEST(Experiment, ShardsPartitionTheGridAndMergeBack) {
  Experiment e(parse_experiment(kSmall, "x.yaml", "."));
  const std::vector<GridCell> all = e.grid();
  ASSERT_EQ(all.size(), 12u);
  std::set<size_t> seen;
  const std::string dir =
      (std::filesystem::temp_directory_path() / "pacml-sim-test-shards").string();
  make_directories(dir);
  std::vector<std::string> files;
  for (int shard = 0; shard < 3; ++shard) {
    EvaluationOptions options;
    options.threads = 1;
    options.progress = 0;
    options.keep_plot_data = false;
    const auto cells = e.grid(shard, 3);
    for (const GridCell& c : cells) EXPECT_TRUE(seen.insert(c.index).second);
    const Evaluation ev = run_evaluation(e, cells, options);
    files.push_back(dir + "/shard-" + std::to_string(shard) + ".json");
    std::ofstream(files.back()) << shard_to_json(e, shard, 3, ev).dump();
  }
  EXPECT_EQ(seen.size(), all.size());
  EvaluationOptions options;
  options.threads = 2;
  options.progress = 0;
  const Evaluation whole = run_evaluation(e, all, options);
  const MergedShards merged = merge_shard_files(files);
  EXPECT_TRUE(merged.missing.empty());
  ASSERT_EQ(merged.episodes.size(), whole.episodes.size());
  for (size_t i = 0; i < whole.episodes.size(); ++i)
    EXPECT_EQ(episode_to_json(merged.episodes[i]), episode_to_json(whole.episodes[i])) << i;
  const auto partial = merge_shard_files({files[0], files[2]});
  EXPECT_EQ(partial.missing.size(), 4u);
  EXPECT_THROW(merge_shard_files({files[0], files[0]}), InputError);
  EXPECT_THROW(merge_shard_files({dir + "/none.json"}), InputError);
  EXPECT_EQ(parse_shard("2/8", "x"), std::make_pair(2, 8));
  EXPECT_THROW(parse_shard("8/8", "x"), InputError);
}

TEST(Summary, MeanAndStudentCi) {
  const Stat s = summarize_values({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.sd, 1.2909944, 1e-6);
  EXPECT_NEAR(s.ci95, 3.182 * 1.2909944 / 2, 1e-6);
  EXPECT_EQ(summarize_values({5}).ci95, 0);
  EXPECT_EQ(t_quantile_975(1000), 1.96);
}

}  // namespace
}  // namespace pacml::sim
