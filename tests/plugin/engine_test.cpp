// The decision engine with a fake slurmctld: placement, reservations,
// reject and queue modes, requirements, config reloads and the decision log.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/cluster/ramp_topology.h"
#include "plugin/engine.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::FakeView;
using testing::node_range;
using testing::TempDir;

struct Fixture {
  TempDir dir;
  std::vector<std::string> logs;
  std::unique_ptr<Engine> engine;
  FakeView view;

  explicit Fixture(const std::string& extra = "") {
    dir.write("pacml.conf",
              "world: paper\ntopology: 4x4x2\nnodes: n[1-32]\nresolve_job_ids: false\n"
              "decision_log: " +
                  dir.file("decisions.jsonl") + "\n" + extra);
    engine = std::make_unique<Engine>(
        dir.file("pacml.conf"), [this](LogLevel, const std::string& m) { logs.push_back(m); });
  }
  SubmitResult submit(std::vector<std::string> env, std::uint32_t time_limit = 0,
                      const std::string& comment = "") {
    SubmitInput in;
    in.uid = 1000;
    in.gid = 1000;
    in.job_name = "t";
    in.now = 1.7e9;
    in.spank_env = std::move(env);
    in.time_limit_minutes = time_limit;
    in.comment = comment;
    return engine->submit(in, view);
  }
  bool logged(const std::string& text) const {
    for (const std::string& l : logs)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
};

std::string opt(const std::string& key, const std::string& value) {
  return "_SLURM_SPANK_OPTION_pacml_pacml_" + key + "=" + value;
}

// Servers of a placement form one C'×R'×S' box of the RAMP grid.
bool is_box(const std::vector<std::string>& nodes) {
  const RampTopology t = RampTopology::parse("4x4x2");
  std::set<int> cs, rs, ss;
  for (const std::string& n : nodes) {
    const ServerCoord c = t.coord(std::stoi(n.substr(1)) - 1);
    cs.insert(c.c), rs.insert(c.r), ss.insert(c.s);
  }
  return cs.size() * rs.size() * ss.size() == nodes.size();
}

TEST(Engine, JobsWithoutPacmlOptionsPassThroughSilently) {
  Fixture f;
  const SubmitResult r = f.submit({"OTHER=1"}, 10, "a comment");
  EXPECT_EQ(r.outcome, Outcome::kPassThrough);
  EXPECT_TRUE(r.log_message.empty());
}

TEST(Engine, PlacesOnAFreeRampBlockWithTimeLimitAndAnnotation) {
  Fixture f;
  const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message << r.log_message;
  EXPECT_EQ(r.num_nodes, 4);  // gnmt: degree 4 is the smallest that meets β 0.45
  EXPECT_EQ(r.nodes, (std::vector<std::string>{"n1", "n3", "n9", "n11"}));
  EXPECT_TRUE(is_box(r.nodes));
  // no --pacml-steps: the job keeps its own time limit
  EXPECT_EQ(r.time_limit_minutes, 0u);
  EXPECT_NE(r.annotation.find("pacml-decision:degree=4"), std::string::npos) << r.annotation;
  EXPECT_NE(r.annotation.find("decision=" + r.decision_id), std::string::npos);
  EXPECT_TRUE(r.annotate_admin_comment);
  EXPECT_NE(r.log_message.find("degree 4 on n1,n3,n9,n11"), std::string::npos) << r.log_message;
}

TEST(Engine, ConsecutiveDecisionsNeverShareNodes) {
  Fixture f;
  std::set<std::string> used;
  for (int i = 0; i < 8; ++i) {
    const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
    ASSERT_EQ(r.outcome, Outcome::kPlaced) << i << ": " << r.user_message;
    EXPECT_TRUE(is_box(r.nodes));
    for (const std::string& n : r.nodes) EXPECT_TRUE(used.insert(n).second) << n;
  }
  EXPECT_EQ(used.size(), 32u);
  // the cluster is now reserved: the next one is blocked
  const SubmitResult full = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  EXPECT_EQ(full.outcome, Outcome::kRejected);
  EXPECT_NE(full.user_message.find("0 of 32 servers free"), std::string::npos) << full.user_message;
}

TEST(Engine, BusyAndDownNodesAreAvoided) {
  Fixture f;
  for (const std::string& n : node_range(1, 16)) f.view.status[n] = NodeStatus::kBusy;
  f.view.status["n20"] = NodeStatus::kUnavailable;
  const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced);
  for (const std::string& n : r.nodes) {
    EXPECT_GT(std::stoi(n.substr(1)), 16) << n;
    EXPECT_NE(n, "n20");
  }
}

TEST(Engine, ReservationEndsWhenTheJobIsSeenRunning) {
  Fixture f;
  const SubmitResult a = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  for (const std::string& n : a.nodes) f.view.status[n] = NodeStatus::kBusy;
  f.submit({opt("model", "gnmt"), opt("beta", "0.45")});                      // sees them busy
  for (const std::string& n : a.nodes) f.view.status[n] = NodeStatus::kFree;  // job ended
  // a's nodes are free again (no stale reservation) but the second job's are reserved
  const SubmitResult c = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  EXPECT_EQ(c.nodes, a.nodes);
}

TEST(Engine, RejectModeExplainsWhy) {
  Fixture f;
  // gnmt needs 20x; its fastest (degree 16) is 15.7x
  const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.05")});
  ASSERT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_EQ(r.reject, RejectKind::kBlocked);
  EXPECT_NE(r.user_message.find("cannot meet its requirement"), std::string::npos);
  EXPECT_NE(r.user_message.find("model gnmt"), std::string::npos);
  EXPECT_NE(r.user_message.find("fastest placement now is degree"), std::string::npos)
      << r.user_message;
}

TEST(Engine, QueueModeQueuesAtTheIdleClusterDegree) {
  Fixture f("on_block: queue\n");
  for (const std::string& n : node_range(1, 32)) f.view.status[n] = NodeStatus::kBusy;
  const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  ASSERT_EQ(r.outcome, Outcome::kQueued) << r.user_message;
  EXPECT_EQ(r.num_nodes, 4);
  EXPECT_TRUE(is_box(r.nodes));
  EXPECT_NE(r.annotation.find(",queued"), std::string::npos);
  // impossible even on an idle cluster: rejected
  const SubmitResult no = f.submit({opt("model", "gnmt"), opt("beta", "0.05")});
  EXPECT_EQ(no.outcome, Outcome::kRejected);
  EXPECT_NE(no.user_message.find("idle cluster either"), std::string::npos);
}

TEST(Engine, DeadlinesAndTimeLimitsBecomeBeta) {
  Fixture f;
  // gnmt: JCT_seq 9.2 s; a 4.2 s deadline needs degree 4 (2.3 s; degree 2 takes 4.6 s)
  const SubmitResult d = f.submit({opt("model", "gnmt"), opt("deadline", "4.2s")});
  ASSERT_EQ(d.outcome, Outcome::kPlaced) << d.user_message;
  EXPECT_EQ(d.num_nodes, 4);
  // --time 10 (minutes) as the requirement: sequential is fine (resnet50: the
  // reference profile's rounding quirk blocks gnmt's sequential run at β 1)
  const SubmitResult t = f.submit({opt("model", "resnet50")}, 10);
  ASSERT_EQ(t.outcome, Outcome::kPlaced) << t.user_message;
  EXPECT_EQ(t.num_nodes, 1);
  // nothing at all: untouched, with a reason in the log
  const SubmitResult n = f.submit({opt("model", "gnmt")});
  EXPECT_EQ(n.outcome, Outcome::kPassThrough);
  EXPECT_NE(n.log_message.find("gives no requirement"), std::string::npos);
  // … and its user is told so (sbatch prints the notice)
  EXPECT_NE(n.user_notice.find("gives no requirement"), std::string::npos) << n.user_notice;
  EXPECT_NE(n.user_notice.find("left it unchanged"), std::string::npos) << n.user_notice;
}

TEST(Engine, TimeLimitsComeFromThePredictionOnlyForJobsThatStateTheirLength) {
  Fixture f;
  f.view.default_part = "main";
  const std::vector<std::string> gnmt = {opt("model", "gnmt"), opt("beta", "0.45")};
  auto with = [&](std::vector<std::string> env, const std::string& key, const std::string& v) {
    env.push_back(opt(key, v));
    return env;
  };
  // steps given: JCT 3.9 s × 1.2 + 60 s → 2 minutes
  SubmitResult r = f.submit(with(gnmt, "steps", "50"));
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.time_limit_minutes, 2u);
  // --pacml-iterations is the same statement
  EXPECT_EQ(f.submit(with(gnmt, "iterations", "50")).time_limit_minutes, 2u);
  // never below the user's --time (the README's bert-large --time=30 case)
  r = f.submit(with(gnmt, "steps", "50"), 30);
  EXPECT_EQ(r.time_limit_minutes, 30u);
  r = f.submit({opt("model", "bert-large")}, 30);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.time_limit_minutes, 0u);  // no length given: its own 30 minutes stay
  // 100000 steps at degree 4: JCT ≈ 77 min → 94 min, capped by MaxTime 90
  f.view.max_minutes["main"] = 90;
  r = f.submit(with(gnmt, "steps", "100000"));
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.time_limit_minutes, 90u);
  EXPECT_NE(r.user_notice.find("capped at partition main's MaxTime"), std::string::npos);
  // a MaxTime below the predicted JCT itself: Slurm would kill it, so refuse
  f.view.max_minutes["main"] = 70;
  r = f.submit(with(gnmt, "steps", "100000"));
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("exceeds partition main's MaxTime of 70 min (01:10:00)"),
            std::string::npos)
      << r.user_message;
  f.view.max_minutes.clear();
  // crafted steps: a clear rejection, never UNLIMITED or thousands of days
  r = f.submit(with(gnmt, "steps", "1000000000"));
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("beyond the 365 days"), std::string::npos) << r.user_message;
  // --time=UNLIMITED is never shortened
  SubmitInput in;
  in.uid = in.gid = 1000;
  in.now = 1.7e9;
  in.spank_env = with(gnmt, "steps", "50");
  in.time_unlimited = true;
  r = f.engine->submit(in, f.view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.time_limit_minutes, 0u);
}

TEST(Engine, TheRequestGoesToTheCommentOnlyWhenItHasNone) {
  Fixture f;
  const std::vector<std::string> env = {opt("model", "gnmt"), opt("beta", "0.45"),
                                        opt("steps", "50")};
  EXPECT_EQ(f.submit(env).request_comment, "pacml:model=gnmt,beta=0.45,steps=50");
  EXPECT_EQ(f.submit(env, 0, "run 7").request_comment, "pacml:model=gnmt,beta=0.45,steps=50");
  EXPECT_EQ(f.submit(env, 0, "pacml:model=vgg16").request_comment, "");
  // a request that came as a comment is already there
  EXPECT_EQ(f.submit({}, 0, "pacml:model=gnmt,beta=0.45").request_comment, "");
}

TEST(Engine, ControlCharactersNeverReachTheLogRaw) {
  Fixture f;
  SubmitInput in;
  in.uid = in.gid = 1000;
  in.now = 1.7e9;
  in.job_name = "x\nerror: forged line";
  in.spank_env = {opt("model", "gnmt"), opt("beta", "0.45")};
  SubmitResult r = f.engine->submit(in, f.view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced);
  EXPECT_EQ(r.log_message.find('\n'), std::string::npos);
  EXPECT_NE(r.log_message.find("x\\nerror: forged line"), std::string::npos) << r.log_message;
  in.spank_env = {opt("model", "gnmt\r\nerror: forged\x1b[2J"), opt("beta", "0.45")};
  r = f.engine->submit(in, f.view);
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  for (char c : r.log_message) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << r.log_message;
  for (const std::string& line : f.logs) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
}

TEST(Engine, WarnsAboutPacmlConfNamesSlurmDoesNotHave) {
  TempDir dir;
  std::vector<std::string> logs;
  dir.write("pacml.conf", "topology: 8x4x2\nnodes: n[1-30],x9\npartitions: [ramp]\n");
  Engine engine(dir.file("pacml.conf"), [&](LogLevel, const std::string& m) { logs.push_back(m); });
  ASSERT_TRUE(engine.refresh_config());
  EXPECT_TRUE(engine.needs_slurm_check());
  SlurmCatalog slurm;
  slurm.nodes = node_range(1, 32);
  slurm.partitions["main"] = slurm.nodes;
  slurm.default_partition = "main";
  const std::vector<std::string> w = engine.check_against_slurm(slurm);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("partition 'ramp' is not a Slurm partition (Slurm has: main)"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[1].find("not Slurm nodes: x9"), std::string::npos) << w[1];
  EXPECT_NE(w[2].find("topology 8x4x2 has 64 servers but 'nodes' names 31 nodes"),
            std::string::npos)
      << w[2];
  EXPECT_FALSE(engine.needs_slurm_check());  // once per configuration
  EXPECT_TRUE(engine.check_against_slurm(slurm).empty());
  // the default mapping: the default partition's nodes against the shape
  dir.write("pacml.conf", "topology: 8x4x2\n# changed\n");
  ASSERT_TRUE(engine.refresh_config());
  const std::vector<std::string> w2 = engine.check_against_slurm(slurm);
  ASSERT_EQ(w2.size(), 1u);
  EXPECT_NE(w2[0].find("has 64 servers but partition main has 32 nodes"), std::string::npos)
      << w2[0];
  // a matching configuration: silence
  dir.write("pacml.conf", "topology: 4x4x2\n# changed again\n");
  ASSERT_TRUE(engine.refresh_config());
  EXPECT_TRUE(engine.check_against_slurm(slurm).empty());
}

TEST(Engine, UserErrorsAreRejectedWithClearMessages) {
  Fixture f;
  const SubmitResult neg = f.submit({opt("model", "gnmt"), opt("deadline", "-10")});
  EXPECT_EQ(neg.reject, RejectKind::kBadTime);
  EXPECT_NE(neg.user_message.find("must not be negative"), std::string::npos);
  const SubmitResult unknown = f.submit({opt("model", "resnet5000"), opt("beta", "0.5")});
  EXPECT_EQ(unknown.reject, RejectKind::kBadRequest);
  EXPECT_NE(unknown.user_message.find("--pacml-model: unknown model 'resnet5000'"),
            std::string::npos)
      << unknown.user_message;
  const SubmitResult none = f.submit({opt("steps", "10"), opt("beta", "0.5")});
  EXPECT_NE(none.user_message.find("--pacml-model=NAME"), std::string::npos);
  const SubmitResult both =
      f.submit({opt("model", "gnmt"), opt("beta", "0.5"), opt("deadline", "5")});
  EXPECT_NE(both.user_message.find("not both"), std::string::npos);
}

TEST(Engine, UnmanagedPartitionsAreRefused) {
  Fixture f("partitions: [ramp]\n");
  SubmitInput in;
  in.spank_env = {opt("model", "gnmt"), opt("beta", "0.5")};
  in.partition = "debug";
  in.now = 1.7e9;
  const SubmitResult r = f.engine->submit(in, f.view);
  EXPECT_EQ(r.reject, RejectKind::kUnmanagedPartition);
  EXPECT_NE(r.user_message.find("pacml manages ramp"), std::string::npos) << r.user_message;
  // no partition named: routed to pacml's partition
  in.partition = "";
  const SubmitResult ok = f.engine->submit(in, f.view);
  EXPECT_EQ(ok.outcome, Outcome::kPlaced);
  EXPECT_EQ(ok.partition, "ramp");
}

TEST(Engine, DefaultMappingIsThePartitionsNodeOrder) {
  TempDir dir;
  dir.write("pacml.conf", "world: paper\ntopology: 2x2x2\nresolve_job_ids: false\n");
  Engine engine(dir.file("pacml.conf"), nullptr);
  FakeView view;
  view.default_part = "main";
  SubmitInput in;
  in.spank_env = {opt("model", "resnet50"), opt("beta", "1")};
  in.now = 1.7e9;
  const SubmitResult unknown = engine.submit(in, view);
  EXPECT_EQ(unknown.outcome, Outcome::kPassThrough);  // partition not known yet …
  EXPECT_NE(unknown.user_notice.find("not known to pacml yet"), std::string::npos);  // … said so
  view.partitions["main"] = {"z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8", "z9"};
  const SubmitResult r = engine.submit(in, view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced);
  EXPECT_EQ(r.nodes, (std::vector<std::string>{"z1"}));
  EXPECT_EQ(r.partition, "main");
}

// From Slurm 23.11 on every `scontrol reconfigure` starts a new slurmctld
// whose nodes are UNKNOWN until they register again: the engine must pass
// the job through, saying why, not refuse it because "nothing is free".
TEST(Engine, NodesStillRegisteringPassTheJobThrough) {
  for (const char* conf :
       {"world: paper\ntopology: 2x2x2\nresolve_job_ids: false\n", "resolve_job_ids: false\n"}) {
    TempDir dir;
    dir.write("pacml.conf", conf);
    Engine engine(dir.file("pacml.conf"), nullptr);
    FakeView view;
    view.default_part = "main";
    view.partitions["main"] = node_range(1, 32);
    for (const std::string& n : view.partitions["main"]) view.status[n] = NodeStatus::kUnknown;
    view.registering = true;
    SubmitInput in;
    in.spank_env = {opt("model", "resnet50"), opt("beta", "1")};
    in.now = 1.7e9;
    const SubmitResult early = engine.submit(in, view);
    EXPECT_EQ(early.outcome, Outcome::kPassThrough) << conf;
    EXPECT_NE(early.user_notice.find("nodes are still registering"), std::string::npos)
        << early.user_notice;
    view.registering = false;  // registered: the same nodes, now free
    for (const std::string& n : view.partitions["main"]) view.status[n] = NodeStatus::kFree;
    EXPECT_EQ(engine.submit(in, view).outcome, Outcome::kPlaced) << conf;
  }
}

TEST(Engine, BrokenConfigKeepsTheLastGoodOne) {
  Fixture f;
  ASSERT_EQ(f.submit({opt("model", "gnmt"), opt("beta", "0.45")}).outcome, Outcome::kPlaced);
  f.dir.write("pacml.conf", "policy: [broken\n");
  const SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  EXPECT_EQ(r.outcome, Outcome::kPlaced);
  EXPECT_TRUE(f.logged("not valid YAML"));
  EXPECT_TRUE(f.logged("keeping the last good configuration"));
  // a fixed file is picked up
  f.dir.write("pacml.conf", "world: paper\ntopology: 4x4x2\nnodes: n[1-32]\npolicy: sequential\n");
  const SubmitResult s = f.submit({opt("model", "resnet50"), opt("beta", "1")});
  EXPECT_EQ(s.num_nodes, 1);
  EXPECT_EQ(f.engine->config().policy, "sequential");
}

TEST(Engine, NeverAGoodConfigMeansPassThrough) {
  TempDir dir;
  dir.write("pacml.conf", "on_block: maybe\n");
  std::vector<std::string> logs;
  Engine engine(dir.file("pacml.conf"), [&](LogLevel, const std::string& m) { logs.push_back(m); });
  FakeView view;
  SubmitInput in;
  in.spank_env = {opt("model", "gnmt"), opt("beta", "0.5")};
  const SubmitResult r = engine.submit(in, view);
  EXPECT_EQ(r.outcome, Outcome::kPassThrough);
  EXPECT_NE(r.log_message.find("no valid"), std::string::npos);
  EXPECT_NE(r.user_notice.find("pacml is not configured here, so pacml left this job unchanged"),
            std::string::npos)
      << r.user_notice;
  ASSERT_FALSE(logs.empty());
  EXPECT_NE(logs[0].find("jobs pass through unchanged until it is fixed"), std::string::npos);
  // a missing file says so too
  Engine missing(dir.file("nope.conf"), [&](LogLevel, const std::string& m) { logs.push_back(m); });
  EXPECT_FALSE(missing.refresh_config());
  EXPECT_NE(logs.back().find("No such file"), std::string::npos);
}

TEST(Engine, MarginTightensTheRequirement) {
  // gnmt, β 0.26 (JCT ≤ 2.39 s): degree 4 predicts 2.30 s, degree 6 1.54 s, 16 0.59 s.
  Fixture none;
  EXPECT_EQ(none.submit({opt("model", "gnmt"), opt("beta", "0.26")}).num_nodes, 4);
  Fixture tenth("margin: 0.1\n");  // 2.30 × 1.1 > 2.39: degree 4 no longer meets it
  const SubmitResult r = tenth.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.num_nodes, 8);
  EXPECT_NE(r.annotation.find("degree=6"), std::string::npos) << r.annotation;
  EXPECT_NE(r.annotation.find("beta=0.26"), std::string::npos) << r.annotation;  // the user's β
  Fixture lots("margin: 4\n");  // 0.59 × 5 > 2.39: nothing meets it
  const SubmitResult b = lots.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  EXPECT_EQ(b.outcome, Outcome::kRejected);
  EXPECT_NE(b.user_message.find("with margin 4"), std::string::npos) << b.user_message;
  // deadlines too: 2.4 s with margin 0.1 leaves 2.18 s, which degree 4 misses
  EXPECT_EQ(none.submit({opt("model", "gnmt"), opt("deadline", "2.4s")}).num_nodes, 4);
  EXPECT_EQ(tenth.submit({opt("model", "gnmt"), opt("deadline", "2.4s")}).num_nodes, 8);
  std::ifstream in(tenth.dir.file("decisions.jsonl"));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json rec = nlohmann::json::parse(line);
  EXPECT_DOUBLE_EQ(rec["margin"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(rec["beta"].get<double>(), 0.26);
}

TEST(Engine, SchedulerParametersOverridePacmlConf) {
  Fixture f("policy: min_feasible\n");
  f.engine->set_sched_params("batch_sched_delay=0,pacml_policy=fixed:8");
  SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_NE(r.annotation.find("degree=8"), std::string::npos) << r.annotation;
  EXPECT_NE(r.annotation.find("policy=fixed:8"), std::string::npos);
  EXPECT_TRUE(f.logged("with SchedulerParameters pacml_policy=fixed:8: policy fixed:8"));
  // a bad token: logged by name and ignored; the others apply (fixed:2, not
  // the fixed:8 before: what is in force depends on the text alone)
  f.engine->set_sched_params("batch_sched_delay=0,pacml_policy=fixed:2,pacml_bogus=1");
  EXPECT_TRUE(f.logged("SchedulerParameters: unknown pacml token 'pacml_bogus=1'"));
  EXPECT_TRUE(
      f.logged("ignored, the other SchedulerParameters settings apply (pacml_policy=fixed:2)"));
  r = f.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  EXPECT_NE((r.annotation + r.user_message).find("fixed:2"), std::string::npos)
      << r.annotation << r.user_message;
  // a bad value of a known token: that token ignored, the margin applies
  f.engine->set_sched_params("pacml_margin=4,pacml_policy=nonsense");
  EXPECT_TRUE(f.logged("pacml_policy=nonsense"));
  EXPECT_TRUE(f.logged("ignored, the other SchedulerParameters settings apply (pacml_margin=4)"));
  r = f.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("policy min_feasible"), std::string::npos) << r.user_message;
  f.engine->set_sched_params("pacml_margin=4");  // policy back to pacml.conf's
  r = f.submit({opt("model", "gnmt"), opt("beta", "0.26")});
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("policy min_feasible"), std::string::npos) << r.user_message;
  f.engine->set_sched_params("");  // all from pacml.conf again
  EXPECT_EQ(f.submit({opt("model", "gnmt"), opt("beta", "0.26")}).num_nodes, 4);
  EXPECT_EQ(f.engine->config().policy, "min_feasible");
}

TEST(Engine, PacmlConfChoosesTheFile) {
  Fixture f;
  const std::string other = f.dir.write(
      "site.conf", "policy: fixed:2\ntopology: 4x4x2\nnodes: n[1-32]\nresolve_job_ids: false\n");
  f.engine->set_sched_params("pacml_conf=" + other);
  EXPECT_EQ(f.engine->config_path(), other);
  SubmitResult r = f.submit({opt("model", "gnmt"), opt("beta", "1")});
  EXPECT_NE((r.annotation + r.user_message).find("fixed:2"), std::string::npos)
      << r.annotation << r.user_message;
  // with both, pacml_policy wins over the chosen file's policy
  f.engine->set_sched_params("pacml_conf=" + other + ",pacml_policy=fixed:4");
  r = f.submit({opt("model", "gnmt"), opt("beta", "1")});
  EXPECT_NE(r.annotation.find("policy=fixed:4"), std::string::npos) << r.annotation;
  // a file that does not exist: logged, the last good configuration stays
  f.engine->set_sched_params("pacml_conf=" + f.dir.file("missing.conf"));
  r = f.submit({opt("model", "gnmt"), opt("beta", "1")});
  EXPECT_TRUE(
      f.logged("missing.conf: No such file or directory (pacml_conf in SchedulerParameters)"));
  EXPECT_NE(r.annotation.find("policy=fixed:4"), std::string::npos) << r.annotation;
}

TEST(Engine, DecisionLogHasOneJsonLinePerDecision) {
  Fixture f;
  const SubmitResult placed = f.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  f.submit({opt("model", "gnmt"), opt("beta", "0.05")});  // rejected
  f.submit({"X=1"});                                      // not a decision
  std::ifstream in(f.dir.file("decisions.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  const nlohmann::json& a = lines[0];
  EXPECT_EQ(a["outcome"], "placed");
  EXPECT_EQ(a["model"], "gnmt");
  EXPECT_EQ(a["action"], 4);
  EXPECT_TRUE(a.contains("free_servers"));
  EXPECT_FALSE(a.contains("free_gpus"));
  EXPECT_TRUE(lines[1].contains("free_servers"));  // a rejection names them too
  EXPECT_EQ(a["node_count"], 4);
  EXPECT_EQ(a["nodes"], "n1,n3,n9,n11");
  EXPECT_EQ(a["servers"].size(), 4u);
  EXPECT_GT(a["jct"].get<double>(), 0);
  // the decision's own latency: measured (not 0) and part of the submission's
  EXPECT_GT(a["latency_ms"].get<double>(), 0);
  EXPECT_LE(a["latency_ms"].get<double>(), placed.latency_ms);
  EXPECT_TRUE(a["job_id"].is_null());
  EXPECT_EQ(a["comment"].get<std::string>().rfind("pacml:model=gnmt,beta=0.45", 0), 0u);
  EXPECT_EQ(lines[1]["outcome"], "rejected");
}

// Without `cluster:`, the physical profile (the default) gives jobs GPU
// counts from the physical model on the paper's cluster of `topology`
// (doc/PHYSICAL.md), asked of Slurm as counts: the paper simulator's degrees
// and exact node lists are the reference profile's only.
TEST(Engine, ThePhysicalProfileDecidesGpusOnTheTopologysCluster) {
  TempDir dir;
  dir.write("pacml.conf", "topology: 4x4x2\nresolve_job_ids: false\n");
  std::vector<std::string> logs;
  Engine engine(dir.file("pacml.conf"), [&](LogLevel, const std::string& m) { logs.push_back(m); });
  FakeView view;
  view.default_part = "main";
  view.partitions["main"] = node_range(1, 32);
  SubmitInput in;
  in.uid = 1000;
  in.now = 1.7e9;
  // resnet50, 1000 steps: 86 s on one GPU, 59 s on two (it speeds up, as measured)
  in.spank_env = {opt("model", "resnet50"), opt("steps", "1000"), opt("deadline", "70s")};
  SubmitResult r = engine.submit(in, view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.num_nodes, 2);
  EXPECT_TRUE(r.nodes.empty());  // Slurm picks the nodes
  EXPECT_NE(r.annotation.find("pacml-plan:gpus=2,nodes=2,gpus_per_node=1,strategy=data"),
            std::string::npos)
      << r.annotation;
  bool logged = false;
  for (const std::string& l : logs)
    logged |= l.find("world gpu, GPU cluster ramp") != std::string::npos;
  EXPECT_TRUE(logged);
  // nodes whose GRES show 4 GPUs: the same job shares one node over NVSwitch
  for (const std::string& n : node_range(1, 32)) view.gpus[n] = {4, 0};
  r = engine.submit(in, view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  EXPECT_EQ(r.num_nodes, 1);
  EXPECT_NE(r.annotation.find("pacml-plan:gpus=2,nodes=1,gpus_per_node=2"), std::string::npos)
      << r.annotation;
  // an impossible deadline is refused with the fastest count's time
  in.spank_env = {opt("model", "resnet50"), opt("steps", "1000"), opt("deadline", "5s")};
  r = engine.submit(in, view);
  EXPECT_EQ(r.outcome, Outcome::kRejected);
  EXPECT_NE(r.user_message.find("the fastest now is"), std::string::npos) << r.user_message;
}

TEST(Engine, HeldLogLinesWaitForTheirJobId) {
  DecisionLog log;
  TempDir dir;
  log.open(dir.file("d.jsonl"));
  log.add("1.1", {{"job_id", nullptr}, {"user_id", 1000u}}, true, 100, 60);
  log.add("1.2", {{"job_id", nullptr}, {"user_id", 1000u}}, true, 100, 60);
  EXPECT_EQ(log.flush(101), 0);
  EXPECT_TRUE(log.resolve("1.1", 42, 1000));
  EXPECT_EQ(log.flush(101), 1);
  EXPECT_EQ(log.unresolved(), (std::vector<std::string>{"1.2"}));
  EXPECT_EQ(log.flush(161), 1);  // expired: written with job_id null
  std::ifstream in(dir.file("d.jsonl"));
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(nlohmann::json::parse(first)["job_id"], 42);
  // a job Slurm never created (refused after the decision, --test-only)
  EXPECT_TRUE(nlohmann::json::parse(second)["job_id"].is_null());
  EXPECT_EQ(nlohmann::json::parse(second)["outcome"], "not_created");
}

}  // namespace
}  // namespace pacml::plugin

namespace pacml::plugin {
namespace {

// --pacml-deadline is the job's Slurm deadline on a RAMP cluster too, with a
// time_min when the limit in force runs past it; a deadline closer than a
// minute (Slurm's unit) is left to pacml's own check.
TEST(Engine, DeadlineBecomesSlurmsDeadline) {
  Fixture f;
  const SubmitResult hour = f.submit({opt("model", "gnmt"), opt("deadline", "1:00:00")}, 30);
  ASSERT_EQ(hour.outcome, Outcome::kPlaced) << hour.user_message;
  EXPECT_EQ(hour.slurm_deadline, static_cast<long>(1.7e9 + 3600));
  EXPECT_EQ(hour.time_min_minutes, 0u);  // 30 min ends in time
  // a floor only from a stated length (issue 32: not from the 50-step default)
  const SubmitResult past =
      f.submit({opt("model", "gnmt"), opt("deadline", "1:00:00"), opt("steps", "50")}, 180);
  EXPECT_EQ(past.time_min_minutes, 2u);  // 3.9 s × 1.2 + 1 min, rounded up
  EXPECT_NE(past.user_notice.find("runs past --pacml-deadline"), std::string::npos);
  const SubmitResult close = f.submit({opt("model", "gnmt"), opt("deadline", "4.2s")});
  ASSERT_EQ(close.outcome, Outcome::kPlaced) << close.user_message;
  EXPECT_EQ(close.slurm_deadline, 0);
}

}  // namespace
}  // namespace pacml::plugin

namespace pacml::plugin {
namespace {

// Users' node options on a RAMP cluster: --exclude honoured, -w refused, -N
// checked against the placement, each refusal saying why.
TEST(Engine, UsersNodeOptionsAreHonouredOrRefused) {
  Fixture f;
  SubmitInput in;
  in.uid = 1000;
  in.now = 1.7e9;
  in.spank_env = {opt("model", "gnmt"), opt("beta", "0.45")};
  in.excluded_nodes = node_range(1, 16);
  const SubmitResult r = f.engine->submit(in, f.view);
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.user_message;
  for (const std::string& n : r.nodes) EXPECT_GT(std::stoi(n.substr(1)), 16) << n;
  in.excluded_nodes.clear();
  in.required_nodes = {"n5"};
  const SubmitResult w = f.engine->submit(in, f.view);
  EXPECT_EQ(w.outcome, Outcome::kRejected);
  EXPECT_NE(w.user_message.find("-w"), std::string::npos) << w.user_message;
  in.required_nodes.clear();
  in.max_nodes = 2;  // gnmt at β 0.45 needs degree 4 on 4 nodes
  const SubmitResult n = f.engine->submit(in, f.view);
  EXPECT_EQ(n.outcome, Outcome::kRejected);
  EXPECT_NE(n.user_message.find("takes 4 nodes, outside your -N 1-2"), std::string::npos)
      << n.user_message;
}

}  // namespace
}  // namespace pacml::plugin
