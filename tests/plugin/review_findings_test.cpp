// The security review's findings (issue 32; plugin/README.md, "Security",
// "Review findings"): each test fails without its fix.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/yaml_input.h"
#include "plugin/config.h"
#include "plugin/decision_log.h"
#include "plugin/engine.h"
#include "plugin/gpu_plan.h"
#include "plugin/graph_source.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::error_of;
using testing::FakeView;
using testing::TempDir;

std::string opt(const std::string& key, const std::string& value) {
  return "_SLURM_SPANK_OPTION_pacml_pacml_" + key + "=" + value;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// An engine on the paper's 32-node RAMP cluster, as engine_test's.
struct Ramp {
  TempDir dir;
  std::unique_ptr<Engine> engine;
  FakeView view;
  explicit Ramp(const std::string& extra = "") {
    dir.write("pacml.conf", "world: paper\ntopology: 4x4x2\nnodes: n[1-32]\ndecision_log: " +
                                dir.file("decisions.jsonl") + "\n" + extra);
    engine = std::make_unique<Engine>(dir.file("pacml.conf"), nullptr);
  }
  SubmitResult submit(std::vector<std::string> env, std::uint32_t time_limit = 0,
                      uid_t uid = 1000) {
    SubmitInput in;
    in.uid = uid;
    in.gid = 1000;
    in.job_name = "t";
    in.now = 1.7e9;
    in.spank_env = std::move(env);
    in.time_limit_minutes = time_limit;
    return engine->submit(in, view);
  }
};

// 1 (high): a 439-byte -w named 4 M nodes and took 1.4 s to expand.
TEST(ReviewFindings, AHostileHostlistIsCountedNotExpanded) {
  std::string hostile;
  while (hostile.size() < 420) hostile += (hostile.empty() ? "" : ",") + std::string("n[0-100000]");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_GT(slurm::count_hostlist(hostile, "-w"), 3000000u);
  const std::string error = error_of([&] { slurm::expand_hostlist(hostile, "-w", 32); });
  EXPECT_LT(seconds_since(t0), 0.1);
  EXPECT_NE(error.find("-w: the hostlist names"), std::string::npos) << error;
  EXPECT_NE(error.find("more than the 32"), std::string::npos) << error;
  EXPECT_NE(error_of([&] { slurm::expand_hostlist(hostile, "-w"); }).find("more than the 65536"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              slurm::expand_hostlist(std::string(300, 'n'), "-w");
            }).find("longer than 255 bytes"),
            std::string::npos);
  EXPECT_EQ(slurm::expand_hostlist("n[1-3],m", "-w", 4).size(), 4u);
}

// The document nested `depth` deep, parsed on a thread with slurmctld's
// 1 MiB stack; returns parse_yaml's error ("" if none).
std::string parse_on_small_stack(const std::string& text) {
  struct Job {
    std::string text, error;
  } job{text, ""};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  pthread_t thread;
  const auto run = [](void* arg) -> void* {
    Job& j = *static_cast<Job*>(arg);
    j.error = error_of([&] {
      std::istringstream in(j.text);
      parse_yaml(in, "deep.yaml");
    });
    return nullptr;
  };
  EXPECT_EQ(pthread_create(&thread, &attr, run, &job), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.error;
}

// 2 (high): with yaml-cpp 0.6, 5,000 levels overflowed the stack.
TEST(ReviewFindings, DeeplyNestedYamlIsRefusedWithAClearError) {
  for (int depth : {65, 400, 5000}) {
    const std::string flow = std::string(depth, '[') + std::string(depth, ']');
    EXPECT_NE(parse_on_small_stack(flow).find("nested more than 64 levels deep"), std::string::npos)
        << depth;
    std::string block;
    for (int i = 0; i < depth; ++i) block += std::string(i, ' ') + "a:\n";
    if (depth <= 400) {  // 5,000 indented levels are 12 MB of text
      EXPECT_NE(parse_on_small_stack(block).find("nested more than 64 levels deep"),
                std::string::npos)
          << depth;
    }
  }
  EXPECT_EQ(parse_on_small_stack(std::string(64, '[') + std::string(64, ']')), "");
  // the billion laughs: aliases repeating a subtree 10^9 times
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + char(c - 1);
    laughs += "]\n";
  }
  EXPECT_NE(parse_on_small_stack(laughs).find("aliases repeat"), std::string::npos);
  // a graph file says so too, and so does pacml.conf
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string graph = dir.write(
      "deep.yaml", "pacml_graph: 1\nname: " + std::string(100, '[') + std::string(100, ']') + "\n");
  EXPECT_NE(
      error_of([&] { compact_user_graph(graph, {}); }).find("nested more than 64 levels deep"),
      std::string::npos);  // read by the SPANK plugin; slurmctld parses no YAML of users'
  const std::string conf =
      dir.write("pacml.conf", "policy: " + std::string(100, '[') + std::string(100, ']') + "\n");
  EXPECT_NE(error_of([&] { load_plugin_config(conf); }).find("nested more than 64"),
            std::string::npos);
}

// 3: an invalid UTF-8 job name made every flush throw; held records grew.
TEST(ReviewFindings, InvalidUtf8IsEscapedAndNeverWedgesTheLog) {
  TempDir dir;
  DecisionLog log;
  log.open(dir.file("d.jsonl"));
  log.add("1", {{"name", "bad\xff\xfe name"}, {"user_id", 1000u}}, true, 100, 60);
  log.add("2", {{"name", "caf\xc3\xa9"}, {"user_id", 1000u}}, true, 100, 60);
  log.add("3", {{"name", "fine"}}, false, 100, 0);
  EXPECT_EQ(log.flush(200), 2);
  EXPECT_TRUE(log.unresolved().empty());
  std::ifstream in(dir.file("d.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["name"], "fine");
  EXPECT_EQ(lines[1]["name"], "bad\\xff\\xfe name");
  EXPECT_EQ(lines[2]["name"], "caf\xc3\xa9");  // valid UTF-8 stays
  // slurmctld's log lines: bytes that are not UTF-8 and C1 controls too
  EXPECT_EQ(slurm::escape_for_log("a\xff\nb\xc2\x85"
                                  "c\xe2\x80\xa8\xc3\xa9"),
            "a\\xff\\nb\\xc2\\x85c\\xe2\\x80\\xa8\xc3\xa9");
  EXPECT_EQ(slurm::escape_for_log(slurm::escape_for_log("x\xc0\x80y")), "x\\xc0\\x80y");
}

// 4: decision ids were "start time.counter", and any job carrying one
// released its reservation and claimed its log record.
TEST(ReviewFindings, DecisionIdsAreUnguessableAndBoundToTheirUser) {
  Ramp a("reservation_ttl: 600\nresolve_job_ids: true\n"), b;
  const SubmitResult first = a.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  ASSERT_EQ(first.outcome, Outcome::kPlaced) << first.user_message;
  const SubmitResult other = b.submit({opt("model", "gnmt"), opt("beta", "0.45")});
  EXPECT_NE(first.decision_id, other.decision_id);  // two controllers started together
  EXPECT_GE(first.decision_id.size(), 34u) << first.decision_id;
  // another user's running job carrying the id changes nothing …
  a.engine->job_seen(first.decision_id, 66, 2000, false);
  EXPECT_TRUE(a.engine->holds_reservations(1.7e9));
  EXPECT_EQ(a.engine->decision_log().unresolved(), std::vector<std::string>{first.decision_id});
  // … the owner's pending job names the record, its start releases the servers
  a.engine->job_seen(first.decision_id, 42, 1000, true);
  EXPECT_TRUE(a.engine->decision_log().unresolved().empty());
  EXPECT_TRUE(a.engine->holds_reservations(1.7e9));
  a.engine->job_seen(first.decision_id, 42, 1000, false);
  EXPECT_FALSE(a.engine->holds_reservations(1.7e9));
  a.engine->decision_log().flush(1.7e9);
  std::ifstream in(a.dir.file("decisions.jsonl"));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(nlohmann::json::parse(line)["job_id"], 42);
}

// Expired reservations no longer keep the background thread polling.
TEST(ReviewFindings, ExpiredReservationsAreDropped) {
  Ramp a("reservation_ttl: 10\nresolve_job_ids: false\n");
  ASSERT_EQ(a.submit({opt("model", "gnmt"), opt("beta", "0.45")}).outcome, Outcome::kPlaced);
  EXPECT_TRUE(a.engine->holds_reservations(1.7e9 + 5));
  EXPECT_FALSE(a.engine->holds_reservations(1.7e9 + 11));
}

// 5: --time-min came from the 50-step default: backfill started a
// --time=600 job with a 2-minute limit.
TEST(ReviewFindings, TimeMinOnlyFromAStatedLength) {
  Ramp f("resolve_job_ids: false\n");
  const SubmitResult unstated = f.submit({opt("model", "gnmt"), opt("deadline", "1:00:00")}, 600);
  ASSERT_EQ(unstated.outcome, Outcome::kPlaced) << unstated.user_message;
  EXPECT_EQ(unstated.time_min_minutes, 0u);
  EXPECT_EQ(unstated.slurm_deadline, 0);  // Slurm would cancel it at once
  EXPECT_NE(unstated.user_notice.find("--pacml-steps"), std::string::npos) << unstated.user_notice;
  const SubmitResult stated =
      f.submit({opt("model", "gnmt"), opt("deadline", "1:00:00"), opt("steps", "50")}, 600);
  EXPECT_EQ(stated.time_min_minutes, 2u);  // 3.9 s × 1.2 + 1 min, rounded up
  EXPECT_EQ(stated.slurm_deadline, static_cast<long>(1.7e9 + 3600));
}

// 6: huge deadlines overflowed the casts to Slurm's integer types.
TEST(ReviewFindings, HugeDeadlinesAreRefused) {
  Ramp f("resolve_job_ids: false\n");
  for (const char* deadline :
       {"now+99999999999999999999weeks", "99999999-00:00:00", "9999-12-31T00:00", "100000000"}) {
    const SubmitResult r = f.submit({opt("model", "gnmt"), opt("deadline", deadline)});
    EXPECT_EQ(r.outcome, Outcome::kRejected) << deadline;
    EXPECT_EQ(r.reject, RejectKind::kBadTime) << deadline;
    EXPECT_NE(r.user_message.find("more than 365 days away"), std::string::npos) << r.user_message;
  }
  EXPECT_EQ(f.submit({opt("model", "gnmt"), opt("deadline", "now+52weeks")}).outcome,
            Outcome::kPlaced);
}

// 7: --gres=gpu:4,nvme:1 lost nvme:1 in the GRES rewrite.
TEST(ReviewFindings, OtherGresSurviveTheGpuRewrite) {
  EXPECT_EQ(without_gpu_entries("gres:gpu:4,gres:nvme:1"), "gres:nvme:1");
  EXPECT_EQ(without_gpu_entries("gres/gpu:a100:2,gres/mps:100,gres/gpu=1"), "gres/mps:100");
  EXPECT_EQ(without_gpu_entries("gres:gpu:4"), "");
  EXPECT_EQ(without_gpu_entries("gres:gpuish:1,cpu:2"), "gres:gpuish:1,cpu:2");
}

// 8: the decision log was created world-readable and followed links.
TEST(ReviewFindings, TheDecisionLogIsPrivateAndNeverALink) {
  TempDir dir;
  const mode_t old = ::umask(022);
  {
    DecisionLog log;
    log.open(dir.file("d.jsonl"));
  }
  ::umask(old);
  struct stat st;
  ASSERT_EQ(::stat(dir.file("d.jsonl").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  ASSERT_EQ(::symlink(dir.file("elsewhere").c_str(), dir.file("link.jsonl").c_str()), 0);
  DecisionLog log;
  EXPECT_NE(error_of([&] { log.open(dir.file("link.jsonl")); }).find("symbolic link"),
            std::string::npos);
  EXPECT_NE(::access(dir.file("elsewhere").c_str(), F_OK), 0);  // nothing created through it
  ASSERT_EQ(::mkfifo(dir.file("fifo.jsonl").c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { log.open(dir.file("fifo.jsonl")); }).find("not a regular file"),
            std::string::npos);
}

// 9: the graph cache key left out the format a text was read as.
TEST(ReviewFindings, AGraphTextIsNeverServedAsTheOtherFormat) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  // native only by the extension: "pacml_graph" is not its first line
  const std::string text =
      "name: g\npacml_graph: 1\noutput: b\nops:\n"
      "  - {id: a, forward_ms: 1, backward_ms: 1, activation_bytes: 8}\n"
      "  - {id: b, forward_ms: 1, backward_ms: 1, activation_bytes: 8}\nedges:\n  - [a, b]\n";
  GraphSource g;
  EXPECT_EQ(g.graph_text(text, dir.write("g.yaml", text), {})->name(), "g");
  EXPECT_NE(error_of([&] {
              g.graph_text(text, dir.write("g.txt", text), {});
            }).find("not a valid PipeDream graph"),
            std::string::npos);
}

// 10: graph_dirs were read with stat + ifstream: a FIFO could block slurmctld.
TEST(ReviewFindings, AdminGraphDirsServeRegularFilesOnly) {
  TempDir site, target;
  std::ofstream(target.file("g.txt")) << "x";
  ASSERT_EQ(::mkfifo(site.file("fifo.txt").c_str(), 0644), 0);
  ASSERT_EQ(::symlink(target.file("g.txt").c_str(), site.file("link.txt").c_str()), 0);
  GraphSourceOptions options;
  options.graph_dirs = {site.path()};
  options.user_graph_files = false;
  GraphSource g;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(error_of([&] {
              g.job_graph({"fifo.txt", "", ""}, options);
            }).find("not a regular file"),
            std::string::npos);
  EXPECT_LT(seconds_since(t0), 1.0);
  EXPECT_NE(error_of([&] {
              g.job_graph({"link.txt", "", ""}, options);
            }).find("symbolic link"),
            std::string::npos);
}

// 16: RAMP decisions grew with the edges, which nothing bounded (12 k edges
// in 343 KB took 10.8 s).
TEST(ReviewFindings, GraphsAreBoundedByEdges) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  std::string text = "pacml_graph: 1\nname: chain\noutput: op5\nops:\n";
  for (int i = 0; i <= 5; ++i)
    text += "  - {id: op" + std::to_string(i) +
            ", forward_ms: 1, backward_ms: 1, activation_bytes: 8}\n";
  text += "edges:\n";
  for (int i = 0; i < 5; ++i)
    text += "  - [op" + std::to_string(i) + ", op" + std::to_string(i + 1) + "]\n";
  const std::string path = dir.write("chain.yaml", text);
  GraphSourceOptions options;
  options.limits.max_edges = 4;
  // in sbatch (the SPANK plugin), and in slurmctld for a form made beyond
  // the limit: its edges are counted before it is parsed
  EXPECT_NE(error_of([&] {
              compact_user_graph(path, options.limits);
            }).find("5 edges, more than the site's limit of 4 (max_graph_edges)"),
            std::string::npos);
  const std::string form = compact_user_graph(path, {});
  GraphSource g;
  EXPECT_NE(error_of([&] {
              g.job_graph({path, form, ""}, options);
            }).find("5 edges, more than the site's limit of 4 (max_graph_edges)"),
            std::string::npos);
  options.limits.max_edges = 5;
  EXPECT_EQ(g.job_graph({path, form, ""}, options)->name(), "chain");
  EXPECT_EQ(PluginConfig().max_graph_edges, 4000);
}

// 13: MaxTime unknown in slurmctld's first seconds gave limits of up to 365 days.
TEST(ReviewFindings, NoPredictedLimitBeforeMaxTimeIsKnown) {
  Ramp f("resolve_job_ids: false\n");
  f.view.limits_known = false;
  const std::vector<std::string> job = {opt("model", "gnmt"), opt("beta", "0.45"),
                                        opt("steps", "50")};
  const SubmitResult early = f.submit(job);
  ASSERT_EQ(early.outcome, Outcome::kPlaced) << early.user_message;
  EXPECT_EQ(early.time_limit_minutes, 0u);  // the job's own
  EXPECT_NE(early.user_notice.find("not known yet"), std::string::npos) << early.user_notice;
  f.view.limits_known = true;
  EXPECT_EQ(f.submit(job).time_limit_minutes, 2u);
}

}  // namespace
}  // namespace pacml::plugin
