// The engine on a GPU cluster (plugin/README.md, "GPU cluster"): k GPUs from
// the physical model, asked of Slurm as counts; the plan the job sees.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/parallel/parallel_job.h"
#include "plugin/engine.h"
#include "plugin/gpu_plan.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::FakeView;
using testing::joined;
using testing::node_range;
using testing::sent_graph;
using testing::TempDir;

// 8 nodes of 4 GPUs as Slurm's GRES reports them.
struct GpuFixture {
  TempDir dir;
  std::vector<std::string> logs;
  std::unique_ptr<Engine> engine;
  FakeView view;

  explicit GpuFixture(const std::string& extra = "", int gpus_per_node = 4) {
    dir.write("pacml.conf", "cluster: dgx-a100-4x8\nresolve_job_ids: false\ndecision_log: " +
                                dir.file("decisions.jsonl") + "\n" + extra);
    view.default_part = "gpu";
    view.partitions["gpu"] = node_range(1, 8);
    for (const std::string& n : node_range(1, 8)) view.gpus[n] = {gpus_per_node, 0};
    engine = std::make_unique<Engine>(
        dir.file("pacml.conf"), [this](LogLevel, const std::string& m) { logs.push_back(m); });
  }
  SubmitResult submit(std::vector<std::string> env, std::uint32_t time_limit = 0,
                      SubmitInput in = SubmitInput()) {
    in.uid = 1000;
    in.job_name = "t";
    in.now = 1.7e9;
    in.spank_env = std::move(env);
    in.time_limit_minutes = time_limit;
    return engine->submit(in, view);
  }
};

std::string opt(const std::string& key, const std::string& value) {
  return "_SLURM_SPANK_OPTION_pacml_pacml_" + key + "=" + value;
}

TEST(GpuPlan, GresCountsAndRequestShapes) {
  EXPECT_EQ(gres_gpu_count("gpu:4"), 4);
  EXPECT_EQ(gres_gpu_count("gpu:a100:4(S:0-1)"), 4);
  EXPECT_EQ(gres_gpu_count("gpu:2(IDX:0,2),mps:100"), 2);
  EXPECT_EQ(gres_gpu_count("gpu:a100:2,gpu:v100:1"), 3);
  EXPECT_EQ(gres_gpu_count("(null)"), 0);
  EXPECT_EQ(gres_gpu_count("gpu:x"), 0);
  // Empty entries and counts (split_fields keeps them) count no GPUs.
  EXPECT_EQ(gres_gpu_count(""), 0);
  EXPECT_EQ(gres_gpu_count("gpu:2,"), 2);
  EXPECT_EQ(gres_gpu_count(",,gpu:1"), 1);
  EXPECT_EQ(gres_gpu_count("gpu:"), 0);
  EXPECT_EQ(gres_gpu_count("gpu:a100:"), 0);
  const RequestShape six = request_shape(6, 4);
  EXPECT_EQ(six.nodes, 2);
  EXPECT_EQ(six.gpus_per_node, 4);
  EXPECT_FALSE(six.whole_nodes);
  const RequestShape two = request_shape(2, 4);
  EXPECT_EQ(two.nodes, 1);
  EXPECT_EQ(two.gpus_per_node, 2);
  EXPECT_FALSE(two.whole_nodes);
  EXPECT_TRUE(request_shape(8, 4).whole_nodes);
  EXPECT_EQ(request_shape(0, 4).nodes, 0);
}

TEST(GpuPlan, AnnotationRoundTripsAndBecomesTheEnvironment) {
  GpuPlan p{6, 2, 4, "hybrid", 2, 1, 3, 812.2, 1764633600L, "fixed:6", "17.3"};
  const std::string text = "user words " + format_plan(p) + " more";
  const std::optional<GpuPlan> back = parse_plan(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->gpus, 6);
  EXPECT_EQ(back->strategy, "hybrid");
  EXPECT_EQ(back->dp, 3);
  EXPECT_EQ(back->jct_s, 813);  // whole seconds, rounded up
  EXPECT_EQ(*back->deadline, 1764633600L);
  EXPECT_EQ(back->decision, "17.3");
  EXPECT_EQ(back->policy, "fixed:6");
  const auto env = plan_environment(*back);
  ASSERT_EQ(env.size(), 11u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"PACML_GPUS", "6"}));
  EXPECT_EQ(env[8], (std::pair<std::string, std::string>{"PACML_DEADLINE", "1764633600"}));
  EXPECT_EQ(env[9].first, "PACML_STEP_REPORT");  // the installed helper
  EXPECT_EQ(env[9].second, PACML_INSTALLED_BINDIR "/pacml-report-steps");
  EXPECT_EQ(env[10].first, "PACML_DECISION");
  EXPECT_FALSE(parse_plan("pacml-plan:gpus=x,decision=1"));
  EXPECT_FALSE(parse_plan("pacml-plan:gpus=2,nodes=1,evil=1,decision=1"));
  EXPECT_FALSE(parse_plan("no plan here"));
  // One comma may end the plan; an empty item anywhere else makes it none.
  EXPECT_TRUE(parse_plan("pacml-plan:gpus=2,nodes=1,decision=1,"));
  EXPECT_FALSE(parse_plan("pacml-plan:gpus=2,nodes=1,decision=1,,"));
  EXPECT_FALSE(parse_plan("pacml-plan:gpus=2,,nodes=1,decision=1"));
  EXPECT_FALSE(parse_plan("pacml-plan:"));
  EXPECT_FALSE(parse_plan("pacml-plan:,"));
  EXPECT_EQ(without_gpu_entries(",gres:gpu:4,,gres:nvme:1,"), "gres:nvme:1");
}

TEST(GpuPlan, TheInteractiveStepGetsTheJobsTaskCount) {
  // salloc's shell (use_interactive_step): srun without -n there starts
  // SLURM_NTASKS ranks, so k of them, whatever salloc -n the user gave
  GpuPlan p{6, 2, 4, "data", 1, 1, 6, 30, std::nullopt, "fixed:6", "17.4"};
  const auto env = interactive_step_environment(p);
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"SLURM_NTASKS", "6"}));
  EXPECT_EQ(env[1], (std::pair<std::string, std::string>{"SLURM_NPROCS", "6"}));
}

TEST(GpuEngine, TheShippedLearnedPolicyDecidesAndAPolicyThatTurnsAJobAwaySaysWhy) {
  GpuFixture learned("policy: pacml:" + std::string(PACML_SOURCE_DIR) +
                     "/contrib/models/default.pacw\n");
  const SubmitResult r =
      learned.submit({opt("model", "resnet50"), opt("deadline", "1:00:00"), opt("steps", "2000")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message << r.log_message;
  const std::optional<GpuPlan> plan = parse_plan(r.annotation);
  ASSERT_TRUE(plan) << r.annotation;
  EXPECT_EQ(plan->policy.rfind("pacml:", 0), 0u) << plan->policy;
  EXPECT_LE(plan->jct_s, 3600);
  // capped:X turns away a job whose cheapest start costs more than X
  // cluster-hours: rejected, not queued, with what it would have cost.
  GpuFixture capped("policy: capped:0.0001\non_block: queue\n");
  const SubmitResult no =
      capped.submit({opt("model", "resnet50"), opt("deadline", "1:00:00"), opt("steps", "2000")});
  EXPECT_EQ(no.outcome, Outcome::kRejected) << no.user_message;
  EXPECT_NE(no.user_message.find("turned it away"), std::string::npos) << no.user_message;
  EXPECT_NE(no.user_message.find("GPU-hours"), std::string::npos) << no.user_message;
}

TEST(GpuEngine, FewestGpusMeetingTheDeadlineAskedAsCounts) {
  GpuFixture f;
  const SubmitResult r =
      f.submit({opt("model", "resnet50"), opt("deadline", "1:00:00"), opt("steps", "2000")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message << r.log_message;
  EXPECT_GE(r.shape.gpus, 1);
  EXPECT_TRUE(r.nodes.empty());  // counts, not a node list: Slurm picks the nodes
  EXPECT_EQ(r.num_nodes, (r.shape.gpus + 3) / 4);
  EXPECT_EQ(r.slurm_deadline, static_cast<long>(1.7e9 + 3600));
  const std::optional<GpuPlan> plan = parse_plan(r.annotation);
  ASSERT_TRUE(plan) << r.annotation;
  EXPECT_EQ(plan->gpus, r.shape.gpus);
  EXPECT_EQ(plan->tp * plan->pp * plan->dp, plan->gpus);
  EXPECT_LE(plan->jct_s, 3600);
  ASSERT_FALSE(r.job_env.empty());
  EXPECT_EQ(r.job_env.back().second, r.decision_id);
  // the fewest: one GPU fewer would miss the deadline (or not fit)
  if (r.shape.gpus > 1) {
    const SubmitResult fixed =
        GpuFixture("policy: fixed:" + std::to_string(r.shape.gpus - 1))
            .submit({opt("model", "resnet50"), opt("deadline", "1:00:00"), opt("steps", "2000")});
    EXPECT_EQ(fixed.outcome, Outcome::kRejected) << fixed.log_message;
  }
}

TEST(GpuEngine, ATimeLimitPastTheDeadlineGetsAFloorInsteadOfBeingKilled) {
  GpuFixture f;
  // a floor only from a stated length (issue 32: not from the 50-step default)
  const std::vector<std::string> job = {opt("model", "resnet50"), opt("deadline", "1:00:00"),
                                        opt("steps", "50")};
  const SubmitResult fits = f.submit(job, 30);
  ASSERT_EQ(fits.outcome, Outcome::kPlaced) << fits.user_message;
  EXPECT_EQ(fits.time_min_minutes, 0u);  // 30 min ends before the deadline
  EXPECT_TRUE(fits.user_notice.empty()) << fits.user_notice;
  const SubmitResult past = f.submit(job, 120);
  ASSERT_EQ(past.outcome, Outcome::kPlaced);
  // resnet50, 50 steps: JCT seconds -> pacml's limit is 2 min (× 1.2 + 1 min)
  EXPECT_EQ(past.time_min_minutes, 2u);
  EXPECT_NE(past.user_notice.find("runs past --pacml-deadline"), std::string::npos);
  // no --time: the stated length's own limit (2 min) ends in time, no floor needed
  const SubmitResult no_time = f.submit(job, 0);
  EXPECT_EQ(no_time.time_limit_minutes, 2u);
  EXPECT_EQ(no_time.time_min_minutes, 0u);
}

TEST(GpuEngine, FixedCountsMapToNodesGresAndSharing) {
  for (int k : {2, 4, 6, 8}) {
    GpuFixture f("policy: fixed:" + std::to_string(k));
    const SubmitResult r = f.submit({opt("model", "resnet50"), opt("beta", "1")});
    ASSERT_EQ(r.outcome, Outcome::kPlaced) << k << ": " << r.user_message;
    EXPECT_EQ(r.shape.gpus, k);
    EXPECT_EQ(r.num_nodes, (k + 3) / 4) << k;
    EXPECT_EQ(r.shape.whole_nodes, k % 4 == 0) << k;
    EXPECT_NE(r.log_message.find(std::to_string(k) + " GPUs on"), std::string::npos)
        << r.log_message;
  }
}

TEST(GpuEngine, GpusInUseAndRecentDecisionsAreNotFree) {
  GpuFixture f("policy: fixed:4");
  for (const std::string& n : node_range(1, 7)) {
    f.view.status[n] = NodeStatus::kBusy;
    f.view.gpus[n] = {4, 4};
  }
  f.view.status["n8"] = NodeStatus::kBusy;
  f.view.gpus["n8"] = {4, 2};  // two GPUs left on n8: no whole node for 4
  const SubmitResult r = f.submit({opt("model", "resnet50"), opt("beta", "1")});
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("2 of 32 GPUs free"), std::string::npos) << r.user_message;
  f.view.gpus["n8"] = {4, 0};
  f.view.status["n8"] = NodeStatus::kFree;
  EXPECT_EQ(f.submit({opt("model", "resnet50"), opt("beta", "1")}).outcome, Outcome::kPlaced);
  // n8 is now held for that decision until its job starts
  const SubmitResult again = f.submit({opt("model", "resnet50"), opt("beta", "1")});
  EXPECT_EQ(again.outcome, Outcome::kRejected) << again.log_message;
}

TEST(GpuEngine, UserNodeLimitsAreHonouredOrRefusedWithAMessage) {
  GpuFixture f("policy: para_max");
  SubmitInput one_node;
  one_node.max_nodes = 1;  // -N 1 (a minimum of 1 is not passed on: it limits nothing)
  const SubmitResult r = f.submit({opt("model", "resnet50"), opt("beta", "1")}, 0, one_node);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.num_nodes, 1);  // para_max would take more, -N 1 caps it
  SubmitInput too_many;
  too_many.required_nodes = node_range(1, 3);
  too_many.max_nodes = 1;
  const SubmitResult no = f.submit({opt("model", "resnet50"), opt("beta", "1")}, 0, too_many);
  EXPECT_EQ(no.outcome, Outcome::kRejected);
  EXPECT_NE(no.user_message.find("within -N 1 and the 3 node(s) of -w"), std::string::npos)
      << no.user_message;
  SubmitInput excluded;
  excluded.excluded_nodes = node_range(1, 8);
  const SubmitResult none = f.submit({opt("model", "resnet50"), opt("beta", "1")}, 0, excluded);
  EXPECT_EQ(none.outcome, Outcome::kRejected);
  EXPECT_NE(none.user_message.find("0 of 32 GPUs free"), std::string::npos) << none.user_message;
}

TEST(GpuEngine, GpuPoliciesOnlyAndKnownModelsOnly) {
  GpuFixture bad("policy: para_min");
  const SubmitResult r = bad.submit({opt("model", "resnet50"), opt("beta", "1")});
  EXPECT_EQ(r.outcome, Outcome::kPassThrough);  // no valid configuration
  bool named = false;
  for (const std::string& l : bad.logs)
    named |= l.find("unknown GPU policy 'para_min'") != std::string::npos;
  EXPECT_TRUE(named);
  GpuFixture f;
  const SubmitResult unknown = f.submit({opt("model", "nosuch"), opt("beta", "1")});
  EXPECT_EQ(unknown.outcome, Outcome::kRejected);
  EXPECT_NE(unknown.user_message.find("--pacml-model"), std::string::npos) << unknown.user_message;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// Graph files on a GPU cluster: sent by the SPANK plugin as on a RAMP
// cluster (the limits, the caches), costed by the physical model at the
// profiled batch.
TEST(GpuEngine, GraphFilesArePlannedWithTheSameReadingRules) {
  GpuFixture f("policy: fixed:4\nmax_graph_ops: 20\n");
  TempDir user;
  ::chmod(user.path().c_str(), 0755);
  const std::string src = PACML_SOURCE_DIR;
  const std::string cnn =
      user.write("example-cnn.yaml", read_text(src + "/contrib/graphs/example-cnn.yaml"));
  const std::string tiny = user.write("tiny.txt", read_text(src + "/tests/fixtures/tiny.txt"));
  const SubmitResult r = f.submit(joined(sent_graph(cnn), {opt("beta", "1")}));
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message << r.log_message;
  EXPECT_EQ(r.shape.gpus, 4);
  EXPECT_EQ(r.shape.nodes, 1);
  EXPECT_NE(r.log_message.find("model example-cnn"), std::string::npos) << r.log_message;
  EXPECT_NE(r.annotation.find("pacml-plan:gpus=4"), std::string::npos) << r.annotation;
  EXPECT_NE(r.request_comment.find("graph=" + cnn), std::string::npos) << r.request_comment;
  const std::string log = read_text(f.dir.file("decisions.jsonl"));
  EXPECT_NE(log.find("\"graph\":\"" + cnn + "\""), std::string::npos) << log;
  // known: the same graph and job, from the caches
  const SubmitResult again = f.submit(joined(sent_graph(cnn), {opt("beta", "1")}));
  ASSERT_EQ(again.outcome, Outcome::kPlaced) << again.user_message;
  EXPECT_EQ(again.shape.gpus, r.shape.gpus);
  EXPECT_EQ(again.job_env.size(), r.job_env.size());
  EXPECT_EQ(f.engine->graphs().size(), 1u);
  const SubmitResult pipedream = f.submit(joined(sent_graph(tiny), {opt("beta", "1")}));
  EXPECT_EQ(pipedream.outcome, Outcome::kPlaced) << pipedream.user_message;
  // the limits
  TempDir deep_dir;
  ::chmod(deep_dir.path().c_str(), 0755);
  std::string chain;
  for (int i = 1; i <= 21; ++i)
    chain += "node" + std::to_string(i) +
             " -- Linear -- forward_compute_time=1, backward_compute_time=1, "
             "activation_size=1024, parameter_size=1024\n" +
             (i > 1 ? "\tnode" + std::to_string(i - 1) + " -- node" + std::to_string(i) + "\n"
                    : std::string());
  const std::string deep = deep_dir.write("deep.txt", chain);
  const SubmitResult too_deep = f.submit(joined(sent_graph(deep), {opt("beta", "1")}));
  EXPECT_EQ(too_deep.outcome, Outcome::kRejected);
  EXPECT_NE(too_deep.user_message.find("21 layers, more than the site's limit of 20"),
            std::string::npos)
      << too_deep.user_message;
  // a path without the graph: never read here
  const SubmitResult unsent = f.submit({opt("graph", cnn), opt("beta", "1")});
  EXPECT_EQ(unsent.outcome, Outcome::kRejected);
  EXPECT_NE(unsent.user_message.find(cnn + ": no graph came with the job"), std::string::npos)
      << unsent.user_message;
  // neither a model nor a graph
  const SubmitResult nothing = f.submit({opt("beta", "1")});
  EXPECT_EQ(nothing.outcome, Outcome::kRejected);
}

TEST(GpuEngine, TheUsersGpuCountIsKeptByRequestedAndOtherwiseReplacedAloud) {
  SubmitInput three;
  three.requested_gpus = 3;
  GpuFixture requested("policy: requested");
  const SubmitResult kept =
      requested.submit({opt("model", "resnet50"), opt("beta", "1")}, 0, three);
  ASSERT_EQ(kept.outcome, Outcome::kPlaced) << kept.user_message;
  EXPECT_EQ(kept.shape.gpus, 3);
  EXPECT_TRUE(kept.user_notice.empty()) << kept.user_notice;
  GpuFixture fixed("policy: fixed:4");
  const SubmitResult told = fixed.submit({opt("model", "resnet50"), opt("beta", "1")}, 0, three);
  ASSERT_EQ(told.outcome, Outcome::kPlaced) << told.user_message;
  EXPECT_EQ(told.shape.gpus, 4);
  EXPECT_NE(told.user_notice.find("asked for 3 GPUs; policy fixed:4 gives it 4"), std::string::npos)
      << told.user_notice;
}

TEST(GpuEngine, QueuedAtTheCountTheIdleClusterAllows) {
  GpuFixture f("policy: fixed:8\non_block: queue");
  for (const std::string& n : node_range(1, 8)) {
    f.view.status[n] = NodeStatus::kBusy;
    f.view.gpus[n] = {4, 4};
  }
  const SubmitResult r = f.submit({opt("model", "resnet50"), opt("beta", "1")});
  ASSERT_EQ(r.outcome, Outcome::kQueued) << r.user_message;
  EXPECT_EQ(r.shape.gpus, 8);
  EXPECT_TRUE(r.shape.whole_nodes);
}

// doc/SLURM.md §10: a job no GPU count could serve on the idle cluster is
// refused at submission, not left pending, whatever the policy; the
// simulator drops it at arrival (GpuReplay.AJobNoGpuCountCanServeNeverWaits...).
TEST(GpuEngine, AJobNoGpuCountCanServeIsRefusedEvenWhenQueueing) {
  // resnet50: a million steps take hours on all 32 GPUs, not one minute.
  const std::vector<std::string> job = {opt("model", "resnet50"), opt("deadline", "1:00"),
                                        opt("steps", "1000000")};
  for (const char* policy : {"min_feasible", "para_max", "fixed:32"}) {
    GpuFixture f(std::string("on_block: queue\npolicy: ") + policy);
    const SubmitResult r = f.submit(job);
    EXPECT_EQ(r.outcome, Outcome::kRejected) << policy << ": " << r.log_message;
    EXPECT_NE(r.user_message.find("cannot be met on an idle cluster either"), std::string::npos)
        << policy << ": " << r.user_message;
  }
}

// pacml.conf's throughput_table: a measured (model, batch, k) replaces the
// analytic step time, so the policy's count and the predicted JCT follow it.
TEST(GpuEngine, AThroughputTableChangesTheGpuCountAndTheJct) {
  const std::vector<std::string> job = {opt("model", "resnet50"), opt("deadline", "20:00"),
                                        opt("steps", "20000")};
  const SubmitResult analytic = GpuFixture().submit(job);
  ASSERT_EQ(analytic.outcome, Outcome::kPlaced) << analytic.user_message;
  ASSERT_GT(analytic.shape.gpus, 1);  // analytically one GPU takes 28.8 min
  // measured: one GPU runs 100 steps/s, so 20000 steps take 200 s
  TempDir table;
  const int batch = ParallelJob::from_zoo("resnet50", ZooOptions())->global_batch();
  table.write("resnet50.csv", "global_batch_size,1,2\n" + std::to_string(batch) + ",100,190\n");
  const SubmitResult measured = GpuFixture("throughput_table: " + table.path()).submit(job);
  ASSERT_EQ(measured.outcome, Outcome::kPlaced) << measured.user_message;
  EXPECT_EQ(measured.shape.gpus, 1);
  const std::optional<GpuPlan> plan = parse_plan(measured.annotation);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->jct_s, 200);
}

// What `pacml history join` lines up with sacct (doc/PHYSICAL.md §11): the
// job's timing inputs and its predicted step, consistent with its JCT.
TEST(GpuEngine, TheDecisionLogRecordsThePredictionAHistoryJoins) {
  GpuFixture f;
  const SubmitResult r =
      f.submit({opt("model", "resnet50"), opt("deadline", "2:00:00"), opt("steps", "3000")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message << r.log_message;
  const nlohmann::json rec = nlohmann::json::parse(read_text(f.dir.file("decisions.jsonl")));
  for (const char* key : {"job_digest", "batch", "precision", "device", "step_time",
                          "compute_share", "gpus", "strategy", "steps", "model"})
    EXPECT_TRUE(rec.contains(key)) << key << " missing from " << rec.dump();
  EXPECT_EQ(rec["model"], "resnet50");
  EXPECT_EQ(rec["steps"], 3000);
  EXPECT_EQ(rec["job_digest"].get<std::string>().size(), 16u);
  EXPECT_GT(rec["batch"].get<int>(), 0);
  EXPECT_NEAR(rec["step_time"].get<double>() * 3000, rec["jct"].get<double>(),
              1e-9 * rec["jct"].get<double>());
  const double share = rec["compute_share"].get<double>();
  EXPECT_GT(share, 0);
  EXPECT_LE(share, 1);
}

}  // namespace
}  // namespace pacml::plugin
