// Hostlists, Slurm time syntax, pacml.conf and job requests.
#include <gtest/gtest.h>

#include <ctime>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "plugin/config.h"
#include "plugin/request.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using slurm::expand_hostlist;
using slurm::join_hostlist;
using slurm::parse_deadline_seconds;
using testing::error_of;
using testing::TempDir;

double parse_slurm_duration_seconds(const std::string& text, const std::string& where,
                                    const std::string& what) {
  return slurm::parse_duration_seconds(text, where, what);
}

TEST(Hostlist, ExpandsRangesPaddingAndLists) {
  EXPECT_EQ(expand_hostlist("n[1-3]", "x"), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(expand_hostlist("gpu[08-10,12]a,login", "x"),
            (std::vector<std::string>{"gpu08a", "gpu09a", "gpu10a", "gpu12a", "login"}));
  EXPECT_EQ(join_hostlist({"a", "b"}), "a,b");
  EXPECT_NE(error_of([] { expand_hostlist("n[3-1]", "nodes"); }).find("descending"),
            std::string::npos);
  EXPECT_NE(error_of([] { expand_hostlist("n[1-3", "nodes"); }).find("unbalanced"),
            std::string::npos);
  EXPECT_NE(error_of([] { expand_hostlist("a,,b", "nodes"); }).find("empty"), std::string::npos);
}

TEST(SlurmTime, DurationsInSlurmSyntax) {
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("90", "t", "time"), 5400);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("1:30", "t", "time"), 90);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("2:00:05", "t", "time"), 7205);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("1-2", "t", "time"), 26 * 3600);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("1-0:10", "t", "time"), 86400 + 600);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("45s", "t", "time"), 45);
  EXPECT_DOUBLE_EQ(parse_slurm_duration_seconds("2h", "t", "time"), 7200);
  EXPECT_NE(error_of([] {
              parse_slurm_duration_seconds("1:2:3:4", "t", "time");
            }).find("not Slurm time syntax"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_slurm_duration_seconds("abc", "t", "time"); }).find("abc"),
            std::string::npos);
}

TEST(SlurmTime, DeadlinesRelativeAbsoluteAndRejected) {
  const double now = 1.7e9;
  EXPECT_DOUBLE_EQ(parse_deadline_seconds("10:00", now, "d"), 600);
  EXPECT_DOUBLE_EQ(parse_deadline_seconds("now+1hour", now, "d"), 3600);
  EXPECT_DOUBLE_EQ(parse_deadline_seconds("now+30", now, "d"), 30);
  // an absolute time an hour from now (local time, like Slurm)
  const std::time_t later = static_cast<std::time_t>(now) + 3600;
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", std::localtime(&later));
  EXPECT_NEAR(parse_deadline_seconds(text, now, "d"), 3600, 1);
  EXPECT_NE(error_of([&] {
              parse_deadline_seconds("-5", now, "--pacml-deadline");
            }).find("--pacml-deadline: the deadline must not be negative"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_deadline_seconds("now-1hour", now, "d"); }).find("past"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_deadline_seconds("2001-01-01T00:00", now, "d"); }).find("past"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_deadline_seconds("0", now, "d"); }).find("positive"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse_deadline_seconds("soon", now, "d"); }).find("soon"),
            std::string::npos);
}

PluginConfig parse(const std::string& text) {
  std::istringstream in(text);
  return parse_plugin_config(in, "pacml.conf");
}

TEST(PluginConfig, DefaultsAndAFullFile) {
  const PluginConfig d = parse("");
  EXPECT_EQ(d.policy, "min_feasible");
  EXPECT_EQ(d.world, World::kGpu);
  EXPECT_EQ(d.num_servers(), 32);
  EXPECT_TRUE(d.nodes.empty());
  const PluginConfig c = parse(
      "policy: para_min\nworld: paper\ntopology: 2x2x3\nnodes: \"gpu[01-12]\"\n"
      "partitions: [ramp, ramp2]\non_block: queue\ngraph_dirs: [/srv/graphs]\n"
      "user_graph_files: false\nmax_graph_bytes: 4096\ndecision_log: /var/log/pacml.jsonl\n"
      "time_limit_factor: 1.5\ntime_limit_extra: \"2:00\"\ndefault_steps: 100\nseed: 7\n"
      "annotate: comment\nreservation_ttl: 10\nresolve_job_ids: no\n");
  EXPECT_EQ(c.policy, "para_min");
  EXPECT_EQ(c.num_servers(), 12);
  ASSERT_EQ(c.nodes.size(), 12u);
  EXPECT_EQ(c.nodes[0], "gpu01");
  EXPECT_EQ(c.nodes[11], "gpu12");
  EXPECT_EQ(c.partitions, (std::vector<std::string>{"ramp", "ramp2"}));
  EXPECT_EQ(c.on_block, OnBlock::kQueue);
  EXPECT_FALSE(c.user_graph_files);
  EXPECT_EQ(c.max_graph_bytes, 4096);
  EXPECT_DOUBLE_EQ(c.time_limit_extra, 120);
  EXPECT_EQ(c.default_steps, 100);
  EXPECT_EQ(c.annotate, "comment");
  EXPECT_FALSE(c.resolve_job_ids);
}

TEST(PluginConfig, NodeMapByCoordinates) {
  const PluginConfig c = parse("topology: 2x1x2\nnodes: {a: [1, 0, 1], b: [0, 0, 0]}\n");
  ASSERT_EQ(c.nodes.size(), 4u);
  EXPECT_EQ(c.nodes[0], "b");
  EXPECT_EQ(c.nodes[3], "a");
  EXPECT_EQ(c.nodes[1], "");
  EXPECT_NE(error_of([] {
              parse("topology: 2x1x2\nnodes: {a: [0, 0, 0], b: [0, 0, 0]}\n");
            }).find("both map to"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("topology: 2x1x2\nnodes: {a: [2, 0, 0]}\n"); }).find("group c"),
            std::string::npos);
}

TEST(PluginConfig, BadValuesNameFileLineAndKey) {
  EXPECT_EQ(error_of([] { parse("policy: para_max\npolcy: x\n"); }).rfind("pacml.conf:2:", 0), 0u);
  EXPECT_NE(error_of([] {
              parse("on_block: wait\n");
            }).find("on_block must be one of 'reject', 'queue', got 'wait'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("policy: greedy\n"); }).find("unknown GPU policy 'greedy'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse("profile: reference\npolicy: greedy\n");
            }).find("unknown policy 'greedy'"),
            std::string::npos);
  // the paper simulator's baselines are not GPU policies
  EXPECT_EQ(error_of([] { parse("policy: para_min\n"); }).rfind("pacml.conf:1: unknown GPU", 0),
            0u);
  EXPECT_NE(error_of([] {
              parse("profile: exact\n");
            }).find("profile must be one of 'physical', 'reference', got 'exact'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("topology: 2x4x2\n"); }), "");  // R > C
  EXPECT_NE(error_of([] { parse("nodes: n[1-33]\n"); }).find("33 nodes listed"), std::string::npos);
  EXPECT_NE(error_of([] { parse("nodes: [n1, n1]\n"); }).find("listed twice"), std::string::npos);
  EXPECT_NE(error_of([] { parse("graph_dirs: [graphs]\n"); }).find("absolute"), std::string::npos);
  EXPECT_NE(error_of([] {
              parse("time_limit_factor: 0.5\n");
            }).find("time_limit_factor = 0.5 is outside the plausible range [1, 1000]"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("policy: [a\n"); }).find("not valid YAML"), std::string::npos);
  EXPECT_NE(error_of([] { parse("- a\n- b\n"); }).find("YAML map"), std::string::npos);
}

TEST(PluginConfig, MissingWeightsFileIsAClearError) {
  const std::string msg = error_of([] { parse("policy: pacml:/nonexistent/policy.pacw\n"); });
  EXPECT_EQ(msg.rfind("pacml.conf:1:", 0), 0u) << msg;
  EXPECT_NE(msg.find("/nonexistent/policy.pacw"), std::string::npos) << msg;
  EXPECT_NE(error_of([] {
              parse("profile: reference\npolicy: \"pacml:\"\n");
            }).find("needs a weights file"),
            std::string::npos);
}

TEST(PluginConfig, LoadsFromAFile) {
  TempDir dir;
  const PluginConfig c = load_plugin_config(dir.write("pacml.conf", "policy: para_max\n"));
  EXPECT_EQ(c.policy, "para_max");
  EXPECT_NE(error_of([&] { load_plugin_config(dir.file("missing.conf")); }).find("cannot open"),
            std::string::npos);
}

TEST(PluginConfig, TheShippedExampleIsValid) {
  const PluginConfig c =
      load_plugin_config(std::string(PACML_SOURCE_DIR) + "/contrib/slurm/pacml.conf");
  // it names no partition and no nodes, so it fits any cluster laid out as
  // `pacml topology --slurm-nodes` prints it (the integration test loads it)
  EXPECT_TRUE(c.partitions.empty());
  EXPECT_TRUE(c.nodes.empty());
  EXPECT_EQ(c.decision_log, "");
  EXPECT_EQ(c.num_servers(), 32);
}

TEST(PluginConfig, MarginKey) {
  EXPECT_DOUBLE_EQ(parse("").margin, 0);
  EXPECT_DOUBLE_EQ(parse("margin: 0.25\n").margin, 0.25);
  EXPECT_NE(error_of([] { parse("margin: 10\n"); }).find("pacml.conf:1: margin must be in [0, 10)"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("margin: -0.1\n"); }).find("margin must be in [0, 10)"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse("margin: lots\n"); }).find("lots"), std::string::npos);
}

TEST(PluginConfig, ThroughputTableIsReadAtLoadWithTheGpuClusterOnly) {
  TempDir dir;
  dir.write("resnet50.csv", "global_batch_size,1,2\n128,10,19\n");
  const PluginConfig c = parse("cluster: dgx-a100-4x8\nthroughput_table: " + dir.path() + "\n");
  ASSERT_TRUE(c.throughput);
  EXPECT_EQ(c.throughput_table, dir.path());
  EXPECT_DOUBLE_EQ(*c.throughput->step_time("resnet50", 128, 2), 1.0 / 19);
  EXPECT_FALSE(parse("cluster: dgx-a100-4x8\n").throughput);
  // a bad cell is named at load: pacml.conf's line and the CSV's file:line
  TempDir bad;
  bad.write("resnet50.csv", "global_batch_size,1,2\n128,10,-1\n");
  const std::string msg =
      error_of([&] { parse("cluster: dgx-a100-4x8\nthroughput_table: " + bad.path() + "\n"); });
  EXPECT_EQ(msg.rfind("pacml.conf:2:", 0), 0u) << msg;
  EXPECT_NE(msg.find(bad.file("resnet50.csv") + ":2"), std::string::npos) << msg;
  EXPECT_NE(
      error_of([] { parse("cluster: dgx-a100-4x8\nthroughput_table: tables\n"); }).find("absolute"),
      std::string::npos);
  // the paper's cluster of `topology` takes measured tables too; the paper's simulator does not
  EXPECT_TRUE(parse("throughput_table: " + dir.path() + "\n").throughput);
  EXPECT_NE(error_of([&] { parse("world: paper\nthroughput_table: " + dir.path() + "\n"); })
                .find("pacml.conf:2: 'throughput_table' applies only with world: gpu, not "
                      "with world: paper"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse("cluster: dgx-a100-4x8\nprofile: reference\n");
            }).find("pacml.conf:1: 'cluster' applies only with world: gpu"),
            std::string::npos);
}

TEST(PluginConfig, TheGpuWorldDecidesGpusOnTheClusterOrTheTopology) {
  const PluginConfig plain = parse("");
  EXPECT_EQ(plain.world, World::kGpu);
  const ClusterSpec paper = gpu_cluster_of(plain);
  EXPECT_EQ(paper.network, NetworkKind::kRamp);
  EXPECT_EQ(paper.num_servers(), 32);
  EXPECT_EQ(paper.gpus_per_server, 1);
  EXPECT_GT(paper.intra_server_bandwidth, 0);  // nodes with several GRES GPUs can be costed
  EXPECT_EQ(gpu_cluster_of(parse("topology: 2x2x2\n")).num_servers(), 8);
  const PluginConfig dgx = parse("cluster: dgx-a100-4x8\n");
  EXPECT_EQ(dgx.world, World::kGpu);
  EXPECT_EQ(gpu_cluster_of(dgx).gpus_per_server, 8);
  EXPECT_EQ(parse("world: paper\npolicy: para_min\n").world, World::kPaper);
}

// Each key is bound to its member and documents the member's initial value as
// its default: a file that writes every key at its documented default reads
// back as the built-in defaults (keys whose default is said in words, like
// "the partition's nodes", are left out).
TEST(PluginConfig, EachKeysDocumentedDefaultIsItsMembersValue) {
  std::string text;
  for (const SettingKey& k : plugin_config_settings().keys())
    if (!k.default_text.empty() && k.default_text.find(' ') == std::string::npos)
      text += k.name + ": \"" + k.default_text + "\"\n";
  EXPECT_NE(text.find("time_limit_extra: \"1:00\""), std::string::npos) << text;
  const PluginConfig read = parse(text), d;
  EXPECT_EQ(read.policy, d.policy);
  EXPECT_EQ(read.world, d.world);
  EXPECT_EQ(read.on_block, d.on_block);
  EXPECT_EQ(read.margin, d.margin);
  EXPECT_EQ(read.num_servers(), d.num_servers());
  EXPECT_EQ(read.user_graph_files, d.user_graph_files);
  EXPECT_EQ(read.max_graph_bytes, d.max_graph_bytes);
  EXPECT_EQ(read.max_graph_ops, d.max_graph_ops);
  EXPECT_EQ(read.max_graph_edges, d.max_graph_edges);
  EXPECT_EQ(read.time_limit_factor, d.time_limit_factor);
  EXPECT_EQ(read.time_limit_extra, d.time_limit_extra);
  EXPECT_EQ(read.default_steps, d.default_steps);
  EXPECT_EQ(read.seed, d.seed);
  EXPECT_EQ(read.annotate, d.annotate);
  EXPECT_EQ(read.reservation_ttl, d.reservation_ttl);
  EXPECT_EQ(read.resolve_job_ids, d.resolve_job_ids);
}

// `world:` is the switch; `profile:` is its older name and still loads.
TEST(PluginConfig, WorldIsOneKeyAndProfileItsOlderName) {
  EXPECT_EQ(parse("world: gpu\n").world, World::kGpu);
  EXPECT_EQ(parse("profile: reference\npolicy: para_min\n").world, World::kPaper);
  EXPECT_EQ(parse("profile: physical\n").world, World::kGpu);
  EXPECT_EQ(parse("world: paper\nprofile: reference\npolicy: para_min\n").world, World::kPaper);
  EXPECT_NE(error_of([] { parse("world: gpu\nprofile: reference\n"); })
                .find("pacml.conf:2: profile: reference is world: paper, but world: gpu is given "
                      "too; give only world:"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse("world: ramp\n");
            }).find("pacml.conf:1: world must be one of 'gpu', 'paper', got 'ramp'"),
            std::string::npos);
  // The paper world's policies are refused in the GPU world, and the other way round.
  EXPECT_THROW(parse("world: gpu\npolicy: para_min\n"), InputError);
  EXPECT_THROW(parse("world: paper\npolicy: capped:0.3\n"), InputError);
}

TEST(SchedParams, PacmlTokensAmongSlurmsOwn) {
  EXPECT_TRUE(parse_sched_params("").empty());
  EXPECT_TRUE(parse_sched_params("batch_sched_delay=0,sched_min_interval=0,bf_interval=5").empty());
  const SchedParams p = parse_sched_params(
      "batch_sched_delay=0, pacml_policy=fixed:4 ,sched_min_interval=0,pacml_margin=0.1,"
      "pacml_on_block=queue,pacml_conf=/etc/slurm/pacml-test.conf,,");
  ASSERT_TRUE(p.policy && p.margin && p.on_block && p.conf);
  EXPECT_EQ(*p.policy, "fixed:4");
  EXPECT_DOUBLE_EQ(*p.margin, 0.1);
  EXPECT_EQ(*p.on_block, OnBlock::kQueue);
  EXPECT_EQ(*p.conf, "/etc/slurm/pacml-test.conf");
  EXPECT_EQ(p.text(),
            "pacml_conf=/etc/slurm/pacml-test.conf,pacml_policy=fixed:4,pacml_on_block=queue,"
            "pacml_margin=0.1");
  // a value may itself contain '=' or ':' (a weights path)
  EXPECT_EQ(*parse_sched_params("pacml_policy=para_max").policy, "para_max");
}

TEST(SchedParams, CollectedErrorsKeepTheGoodTokens) {
  std::vector<std::string> errors;
  const SchedParams p = parse_sched_params(
      "bf_interval=5,pacml_margin=0.5,pacml_policy=nonsense,pacml_colour=blue,pacml_margin=1",
      &errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("pacml_policy=nonsense"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("unknown pacml token 'pacml_colour=blue'"), std::string::npos);
  EXPECT_NE(errors[2].find("given twice"), std::string::npos);
  EXPECT_EQ(p.text(), "pacml_margin=0.5");  // the first margin; the bad tokens left out
}

TEST(SchedParams, BadTokensAreNamed) {
  const auto err = [](const std::string& text) {
    return error_of([&] { parse_sched_params(text); });
  };
  EXPECT_NE(
      err("bf_interval=5,pacml_polcy=fixed:4").find("unknown pacml token 'pacml_polcy=fixed:4'"),
      std::string::npos);
  EXPECT_NE(err("pacml_policy=bogus").find("SchedulerParameters: pacml_policy=bogus"),
            std::string::npos)
      << err("pacml_policy=bogus");
  EXPECT_NE(err("pacml_margin=-1").find("pacml_margin=-1: margin must be in [0, 10)"),
            std::string::npos);
  EXPECT_NE(err("pacml_margin=10").find("pacml_margin=10"), std::string::npos);
  EXPECT_NE(err("pacml_margin=abc").find("pacml_margin=abc"), std::string::npos);
  EXPECT_NE(err("pacml_on_block=wait").find("on_block must be 'reject' or 'queue', got 'wait'"),
            std::string::npos);
  EXPECT_NE(err("pacml_conf=pacml.conf").find("pacml_conf must be an absolute path"),
            std::string::npos);
  EXPECT_NE(err("pacml_policy").find("'pacml_policy': pacml_policy needs a value"),
            std::string::npos);
  EXPECT_NE(err("pacml_policy=").find("needs a value"), std::string::npos);
  EXPECT_NE(err("pacml_margin=0.1,pacml_margin=0.2").find("given twice"), std::string::npos);
  EXPECT_NE(err("pacml_policy=pacml:/nonexistent/w.pacw").find("pacml_policy=pacml:/nonexistent"),
            std::string::npos);
}

TEST(SchedParams, TakePrecedenceOverPacmlConf) {
  PluginConfig c = parse("policy: para_max\non_block: queue\nmargin: 0.5\n");
  apply_sched_params(c, parse_sched_params("pacml_policy=fixed:4"));
  EXPECT_EQ(c.policy, "fixed:4");
  EXPECT_EQ(c.on_block, OnBlock::kQueue);  // not given: pacml.conf's value stays
  EXPECT_DOUBLE_EQ(c.margin, 0.5);
  apply_sched_params(c, parse_sched_params("pacml_on_block=reject,pacml_margin=0"));
  EXPECT_EQ(c.on_block, OnBlock::kReject);
  EXPECT_DOUBLE_EQ(c.margin, 0);
}

TEST(JobRequest, SpankOptionsAndTheResolvedGraphPath) {
  const JobRequest r = extract_request(
      {"_SLURM_SPANK_OPTION_pacml_pacml_graph=g.txt", "_SLURM_SPANK_OPTION_pacml_pacml_steps=100",
       "_SLURM_SPANK_OPTION_pacml_pacml_deadline=1:00:00", "PACML_GRAPH=/home/u/g.txt", "OTHER=1"},
      "");
  EXPECT_TRUE(r.wants_pacml);
  EXPECT_EQ(r.graph, "/home/u/g.txt");
  EXPECT_EQ(*r.steps, 100);
  EXPECT_EQ(*r.deadline, "1:00:00");
  EXPECT_EQ(r.origin, "spank");
  EXPECT_FALSE(extract_request({"FOO=bar"}, "just a comment").wants_pacml);
}

TEST(JobRequest, CommentFallback) {
  const JobRequest r = extract_request({}, "my run pacml:model=gnmt,beta=0.4,steps=20");
  EXPECT_TRUE(r.wants_pacml);
  EXPECT_EQ(r.model, "gnmt");
  EXPECT_DOUBLE_EQ(*r.beta, 0.4);
  EXPECT_EQ(*r.steps, 20);
  EXPECT_EQ(r.origin, "comment");
}

TEST(JobRequest, BadValuesAreUserErrors) {
  EXPECT_NE(error_of([] {
              extract_request({"_SLURM_SPANK_OPTION_pacml_pacml_beta=1.5"}, "");
            }).find("--pacml-beta: beta must be in (0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              extract_request({"_SLURM_SPANK_OPTION_pacml_pacml_steps=-3"}, "");
            }).find("--pacml-steps"),
            std::string::npos);
  EXPECT_NE(error_of([] { extract_request({}, "pacml:modl=gnmt"); }).find("unknown pacml option"),
            std::string::npos);
  EXPECT_NE(error_of([] { extract_request({}, "pacml:gnmt"); }).find("not key=value"),
            std::string::npos);
  EXPECT_NE(error_of([] { extract_request({}, "pacml:model=gnmt,graph=/g.txt"); }).find("not both"),
            std::string::npos);
}

TEST(JobRequest, IterationsIsStepsAndSaysSoWhenBothAreGiven) {
  const JobRequest r = extract_request({"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt",
                                        "_SLURM_SPANK_OPTION_pacml_pacml_iterations=300"},
                                       "");
  EXPECT_EQ(*r.steps, 300);
  EXPECT_NE(error_of([] {
              extract_request({"_SLURM_SPANK_OPTION_pacml_pacml_steps=3",
                               "_SLURM_SPANK_OPTION_pacml_pacml_iterations=3"},
                              "");
            }).find("given twice"),
            std::string::npos);
}

TEST(SlurmComment, OneGrammarForThePluginAndTheTraces) {
  slurm::RequestFields f;
  EXPECT_TRUE(slurm::parse_comment(
      "run7;pacml:graph=/data/my%20graphs/g%2C1.txt,deadline=now+2hours,iterations=9 "
      "pacml-decision:degree=4,decision=1.2",
      f, "--comment"));
  EXPECT_EQ(*f.graph, "/data/my graphs/g,1.txt");
  EXPECT_EQ(*f.deadline, "now+2hours");
  EXPECT_EQ(*f.steps, 9);
  // what pacml writes reads back exactly
  const std::string text = slurm::format_comment(f);
  EXPECT_EQ(text, "pacml:graph=/data/my%20graphs/g%2C1.txt,deadline=now+2hours,steps=9");
  slurm::RequestFields again;
  EXPECT_TRUE(slurm::parse_comment(text, again, "x"));
  EXPECT_EQ(again.graph, f.graph);
  slurm::RequestFields none;
  EXPECT_FALSE(slurm::parse_comment("pacml-decision:degree=4 plain words", none, "x"));
  EXPECT_NE(error_of([] {
              slurm::RequestFields g;
              slurm::parse_comment("pacml:beta=2", g, "--comment");
            }).find("--comment pacml:beta: beta must be in (0, 1]"),
            std::string::npos);
}

TEST(SlurmSyntax, LogTextIsEscapedAndTimeLimitsFormatted) {
  EXPECT_EQ(slurm::escape_for_log("a\nerror: b\r\tc\x01\x7f"), "a\\nerror: b\\r\\tc\\x01\\x7f");
  EXPECT_EQ(slurm::escape_for_log(slurm::escape_for_log("x\ny")), "x\\ny");  // idempotent
  EXPECT_EQ(slurm::format_minutes(30), "30");
  EXPECT_EQ(slurm::format_minutes(90), "01:30:00");
  EXPECT_EQ(slurm::format_minutes(1563), "1-02:03:00");
  EXPECT_DOUBLE_EQ(slurm::parse_duration_seconds("1-02:03:04", "t", "time"), 93784);
}

}  // namespace
}  // namespace pacml::plugin
