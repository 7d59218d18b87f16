// pacml.conf's `correction:` (doc/SLURM.md §11): the site's correction of
// predicted step times changes the GPU decision and the time limit of the
// jobs it names, is re-read when the file changes, is refused at file:line
// when bad (the last good configuration stays), and is named in the log.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "plugin/engine.h"
#include "plugin/gpu_plan.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::FakeView;
using testing::node_range;
using testing::TempDir;

std::string opt(const std::string& key, const std::string& value) {
  return "_SLURM_SPANK_OPTION_pacml_pacml_" + key + "=" + value;
}

// 8 nodes of 4 GPUs; pacml.conf with `extra` appended.
struct CorrectionFixture {
  TempDir dir;
  std::vector<std::string> logs;
  std::unique_ptr<Engine> engine;
  FakeView view;

  explicit CorrectionFixture(const std::string& extra = "") {
    write_conf(extra);
    view.default_part = "gpu";
    view.partitions["gpu"] = node_range(1, 8);
    for (const std::string& n : node_range(1, 8)) view.gpus[n] = {4, 0};
    engine = std::make_unique<Engine>(
        dir.file("pacml.conf"), [this](LogLevel, const std::string& m) { logs.push_back(m); });
  }
  void write_conf(const std::string& extra) {
    dir.write("pacml.conf",
              "cluster: dgx-a100-4x8\nresolve_job_ids: false\nreservation_ttl: 0\n"
              "decision_log: " +
                  dir.file("decisions.jsonl") + "\n" + extra);
  }
  // A correction file with one entry per line of `entries`.
  std::string write_correction(const std::string& name, const std::string& version,
                               const std::string& entries) {
    return dir.write(name, "pacml_correction: 1\nversion: " + version + "\nentries:\n" + entries);
  }
  SubmitResult submit(const std::string& model, std::uint32_t time_limit = 0) {
    SubmitInput in;
    in.uid = 1000;
    in.job_name = "t";
    in.now = 1.7e9;
    in.spank_env = {opt("model", model), opt("deadline", "10:00"), opt("steps", "3000")};
    in.time_limit_minutes = time_limit;
    return engine->submit(in, view);
  }
  // The decision log's last record.
  nlohmann::json last_record() const {
    std::ifstream in(dir.file("decisions.jsonl"));
    std::string line, last;
    while (std::getline(in, line))
      if (!line.empty()) last = line;
    return nlohmann::json::parse(last);
  }
  bool logged(const std::string& text) const {
    for (const std::string& m : logs)
      if (m.find(text) != std::string::npos) return true;
    return false;
  }
};

const char* const kResnetSlower =
    "  - {model: resnet50, device: \"*\", compute: 3, comm: 3, jobs: 40}\n";

// A GPU decision logs the free GPUs under their own name: the RAMP log's
// free_servers and action would name servers and a degree it does not have.
TEST(CorrectionEngine, TheGpuLogCountsFreeGpusNotServers) {
  CorrectionFixture f;
  const SubmitResult placed = f.submit("resnet50");
  ASSERT_EQ(placed.outcome, Outcome::kPlaced) << placed.user_message;
  const nlohmann::json rec = f.last_record();
  ASSERT_TRUE(rec.contains("free_gpus"));
  EXPECT_GE(rec["free_gpus"].get<int>(), placed.shape.gpus);  // counted before the job took its
  EXPECT_FALSE(rec.contains("free_servers"));
  EXPECT_FALSE(rec.contains("action"));
  EXPECT_EQ(rec["gpus"], placed.shape.gpus);
}

TEST(CorrectionEngine, TheCorrectedStepTimeDecidesForTheModelItNamesOnly) {
  CorrectionFixture plain;
  const SubmitResult base = plain.submit("resnet50");
  ASSERT_EQ(base.outcome, Outcome::kPlaced) << base.user_message;
  const nlohmann::json base_rec = plain.last_record();
  const SubmitResult other_base = plain.submit("vgg16");
  ASSERT_EQ(other_base.outcome, Outcome::kPlaced) << other_base.user_message;

  CorrectionFixture f;
  const std::string corr = f.write_correction("corr.yaml", "site-1", kResnetSlower);
  f.write_conf("correction: " + corr + "\n");
  const SubmitResult slow = f.submit("resnet50");
  ASSERT_EQ(slow.outcome, Outcome::kPlaced) << slow.user_message;
  // three times slower: more GPUs to meet the 10 minutes, and a longer time limit
  EXPECT_GT(slow.shape.gpus, base.shape.gpus);
  EXPECT_GT(slow.time_limit_minutes, base.time_limit_minutes);
  const nlohmann::json rec = f.last_record();
  for (const char* key : {"correction", "correction_digest", "correction_applied",
                          "corrected_step_time", "step_time", "jct"})
    ASSERT_TRUE(rec.contains(key)) << key << " missing from " << rec.dump();
  EXPECT_EQ(rec["correction"], "site-1");
  EXPECT_EQ(rec["correction_digest"].get<std::string>().size(), 16u);
  EXPECT_EQ(rec["correction_applied"], true);
  // step_time stays the model's: the corrected one is beside it, and the JCT
  // (and so the time limit) comes from the corrected one
  const double step = rec["step_time"].get<double>(), fixed = rec["corrected_step_time"];
  EXPECT_NEAR(fixed, 3 * step, 1e-9 * fixed);
  EXPECT_NEAR(rec["jct"].get<double>(), 3000 * fixed, 1e-6 * fixed);
  EXPECT_LE(rec["jct"].get<double>(), 600);
  EXPECT_GT(3000 * 3 * base_rec["step_time"].get<double>(), 600);  // base's k misses it
  // a model the file does not name: the model's own prediction
  const SubmitResult other = f.submit("vgg16");
  ASSERT_EQ(other.outcome, Outcome::kPlaced) << other.user_message;
  EXPECT_EQ(other.shape.gpus, other_base.shape.gpus);
  EXPECT_EQ(other.time_limit_minutes, other_base.time_limit_minutes);
  nlohmann::json other_rec = f.last_record();
  EXPECT_EQ(other_rec["correction"], "site-1");
  EXPECT_EQ(other_rec["correction_applied"], false);
  EXPECT_FALSE(other_rec.contains("corrected_step_time"));
  // slurmctld's log names the correction loaded, once: two submissions, one load
  int loads = 0;
  for (const std::string& m : f.logs) loads += m.find("pacml: loaded") != std::string::npos;
  EXPECT_EQ(loads, 1);
  EXPECT_TRUE(f.logged(", correction site-1 (" + corr + ", 1 entries, digest "));
}

TEST(CorrectionEngine, ASiteWideEntryCorrectsTheModelsNotNamed) {
  CorrectionFixture plain;
  const SubmitResult base = plain.submit("vgg16");
  ASSERT_EQ(base.outcome, Outcome::kPlaced) << base.user_message;
  const double base_jct = plain.last_record()["jct"];
  CorrectionFixture f;
  const std::string corr = f.write_correction(
      "corr.yaml", "site-2", std::string(kResnetSlower) + "  - {model: \"*\", compute: 1.5}\n");
  f.write_conf("correction: " + corr + "\n");
  ASSERT_EQ(f.submit("vgg16").outcome, Outcome::kPlaced);
  nlohmann::json rec = f.last_record();  // not const: a missing key reads as null
  EXPECT_EQ(rec["correction_applied"], true);
  EXPECT_EQ(rec["correction_compute"], 1.5);
  if (rec["gpus"] == base.shape.gpus) {
    EXPECT_NEAR(rec["jct"].get<double>(), 1.5 * base_jct, 1e-6);
  } else {
    EXPECT_GT(rec["gpus"].get<int>(), base.shape.gpus);  // more GPUs for the slower steps
  }
}

TEST(CorrectionEngine, AFasterCorrectionNeverLimitsBelowTheUsersTime) {
  CorrectionFixture f;
  const std::string corr =
      f.write_correction("corr.yaml", "fast", "  - {model: resnet50, compute: 0.05, comm: 0.05}\n");
  f.write_conf("correction: " + corr + "\n");
  const SubmitResult r = f.submit("resnet50", 50);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.time_limit_minutes, 50u);                 // the prediction says a few minutes
  EXPECT_LT(f.last_record()["jct"].get<double>(), 60);  // 0.05 x the model's 259 s
}

// The engine's reload path (refresh_config, on every submission and so after
// `scontrol reconfigure`): a new correction file is picked up without
// touching pacml.conf, and so is a pacml.conf naming another one.
TEST(CorrectionEngine, ANewCorrectionFileIsPickedUpByTheReload) {
  CorrectionFixture f;
  const std::string corr = f.write_correction("corr.yaml", "v1", kResnetSlower);
  f.write_conf("correction: " + corr + "\n");
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "v1");
  const int slow_gpus = f.last_record()["gpus"];
  f.write_correction("corr.yaml", "v2-longer", "  - {model: resnet50, compute: 1}\n");
  ASSERT_TRUE(f.engine->refresh_config());
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "v2-longer");
  EXPECT_LT(f.last_record()["gpus"].get<int>(), slow_gpus);
  const std::string other = f.write_correction("other.yaml", "v3", kResnetSlower);
  f.write_conf("correction: " + other + "\n# another file\n");
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "v3");
  EXPECT_EQ(f.last_record()["gpus"], slow_gpus);
  EXPECT_TRUE(f.logged("pacml: loaded"));
}

// A bad correction file is named at file:line; slurmctld keeps deciding with
// the last good configuration, and fixing the file alone is picked up.
TEST(CorrectionEngine, ABadFileIsNamedAtItsLineAndTheLastGoodConfigurationStays) {
  CorrectionFixture f;
  const std::string corr = f.write_correction("corr.yaml", "good", kResnetSlower);
  f.write_conf("correction: " + corr + "\n");
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  const int good_gpus = f.last_record()["gpus"];
  f.write_correction("corr.yaml", "bad", "  - {model: resnet50, compute: 300}\n");
  EXPECT_TRUE(f.engine->refresh_config());
  EXPECT_TRUE(f.logged(corr + ":4")) << (f.logs.empty() ? "" : f.logs.back());
  EXPECT_TRUE(f.logged("keeping the last good configuration"));
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "good");
  EXPECT_EQ(f.last_record()["gpus"], good_gpus);
  f.write_correction("corr.yaml", "fixed", kResnetSlower);
  ASSERT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "fixed");
}

TEST(CorrectionEngine, AFirstBadFileLetsJobsPassAndAFifoIsNotRead) {
  CorrectionFixture f;
  const std::string corr = f.write_correction("corr.yaml", "bad", "  - {model: x, comp: 2}\n");
  f.write_conf("correction: " + corr + "\n");
  EXPECT_FALSE(f.engine->refresh_config());
  EXPECT_TRUE(f.logged(corr + ":4")) << (f.logs.empty() ? "" : f.logs.back());
  EXPECT_TRUE(f.logged("pacml.conf:5: correction: ")) << (f.logs.empty() ? "" : f.logs.back());
  EXPECT_EQ(f.submit("resnet50").outcome, Outcome::kPassThrough);
  // fixing the correction file alone (pacml.conf unchanged) is picked up
  f.write_correction("corr.yaml", "fixed", kResnetSlower);
  EXPECT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "fixed");
  // a FIFO would block slurmctld's read: refused through the descriptor
  const std::string fifo = f.dir.file("fifo.yaml");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  f.write_conf("correction: " + fifo + "\n");
  EXPECT_TRUE(f.engine->refresh_config());  // the fixed one stays in force
  EXPECT_TRUE(f.logged(fifo + ": cannot read: not a regular file"));
  f.write_conf("correction: relative.yaml\n");
  EXPECT_TRUE(f.engine->refresh_config());
  EXPECT_TRUE(f.logged("correction entries must be absolute paths"));
  EXPECT_EQ(f.submit("resnet50").outcome, Outcome::kPlaced);
  EXPECT_EQ(f.last_record()["correction"], "fixed");
}

}  // namespace
}  // namespace pacml::plugin
