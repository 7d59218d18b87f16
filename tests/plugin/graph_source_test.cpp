// Reading graphs: zoo models, admin directories, users' files read on the
// submitting side (as the SPANK plugin does) and sent in their compact form,
// limits, and messages that never echo file contents.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "core/util/error.h"
#include "plugin/compact_graph.h"
#include "plugin/graph_source.h"
#include "plugin/user_graph.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::error_of;
using testing::TempDir;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// A user's graph file as slurmctld gets it: read and compacted on the
// submitting side (the SPANK plugin's compact_user_graph), then decided on
// from the form alone.
JobGraphPtr user_graph(GraphSource& g, const std::string& path,
                       const GraphSourceOptions& options = {}) {
  return g.job_graph({path, compact_user_graph(path, options.limits), ""}, options);
}

// The message compact_user_graph gives when run in a child process that
// has become `uid` for good (the user's own sbatch); "" if it succeeds.
std::string error_as_user(const std::string& path, uid_t uid, gid_t gid) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    std::string msg = "could not become the user";
    if (::setgroups(0, nullptr) == 0 && ::setresgid(gid, gid, gid) == 0 &&
        ::setresuid(uid, uid, uid) == 0) {
      msg = error_of([&] { compact_user_graph(path, {}); });
    }
    if (!msg.empty() && ::write(fds[1], msg.data(), msg.size()) < 0) _exit(1);
    _exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, n);
  ::close(fds[0]);
  ::waitpid(child, nullptr, 0);
  return out;
}

std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(PACML_SOURCE_DIR) + "/tests/fixtures/" + name);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

TEST(GraphSource, ZooModelsAreBuiltOnceAndCached) {
  GraphSource g;
  const JobGraphPtr a = g.zoo_model("gnmt");
  EXPECT_EQ(a->name(), "gnmt");
  EXPECT_EQ(g.zoo_model("gnmt"), a);
  EXPECT_NE(error_of([&] { g.zoo_model("nosuchnet"); }).find("unknown model 'nosuchnet'"),
            std::string::npos);
}

TEST(GraphSource, UserFilesBothFormatsCachedByContent) {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string txt = dir.write("tiny.txt", fixture_text("tiny.txt"));
  const std::string yaml = dir.write("tiny.yaml", fixture_text("tiny.yaml"));
  GraphSource g;
  const JobGraphPtr a = user_graph(g, txt);
  EXPECT_EQ(a->name(), "tiny");
  EXPECT_EQ(user_graph(g, txt), a);  // cached
  EXPECT_EQ(user_graph(g, yaml)->name(), "tiny-mlp");
  // relative to the submit directory, as sbatch resolves it
  EXPECT_EQ(resolve_user_graph("sub/tiny.txt", "/home/u"), "/home/u/sub/tiny.txt");
  EXPECT_EQ(resolve_user_graph("/abs/tiny.txt", "/home/u"), "/abs/tiny.txt");
  EXPECT_EQ(resolve_user_graph("no-such-site-graph.txt", "/home/u"), "");  // a site name
}

TEST(GraphSource, DistinctContentsNeverShareAFingerprint) {
  // The fingerprint keys the lookahead and policy caches. A content hash
  // (FNV-1a, the form's digest) could be forged by a crafted form;
  // GraphSource compares forms in full and numbers each distinct one, so a
  // different graph or an evicted-and-resent one gets its own number, and
  // only the same form shares one.
  TempDir da, db, dc;
  const std::string text = fixture_text("tiny.txt");
  const std::string a = da.write("tiny.txt", text), b = db.write("tiny.txt", text);
  std::string other = text;
  other.replace(other.find("forward_compute_time=1.500"), 26, "forward_compute_time=1.501");
  const std::string c = dc.write("tiny.txt", other);
  GraphSource g;
  const JobGraphPtr ga = user_graph(g, a);
  EXPECT_EQ(user_graph(g, b), ga);  // same graph, same model name
  const JobGraphPtr gc = user_graph(g, c);
  EXPECT_NE(gc->fingerprint(), ga->fingerprint());
  EXPECT_NE(ga->fingerprint(), make_job_graph(ga->layers())->fingerprint());  // not the FNV
}

TEST(GraphSource, TheCacheStaysWithinItsBytes) {
  TempDir dir;
  const std::string text = fixture_text("tiny.txt");
  GraphSource probe;
  user_graph(probe, dir.write("g0.txt", text));
  const size_t one = probe.bytes();  // the cost of one such graph
  GraphSource g(2 * one + one / 2);
  std::vector<JobGraphPtr> seen;
  for (int i = 0; i < 6; ++i)  // names of one length: forms of one size
    seen.push_back(user_graph(g, dir.write("g" + std::to_string(i) + ".txt", text)));
  EXPECT_LE(g.bytes(), 2 * one + one / 2);
  EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(user_graph(g, dir.file("g5.txt")), seen[5]);        // recent: kept
  const JobGraphPtr again = user_graph(g, dir.file("g0.txt"));  // evicted: sent again
  EXPECT_NE(again, seen[0]);
  EXPECT_NE(again->fingerprint(), seen[0]->fingerprint());
}

TEST(GraphSource, AdminDirectoriesServeBareNamesOnly) {
  TempDir site, other;
  site.write("resnet-site.txt", fixture_text("tiny.txt"));
  const std::string mine = other.write("mine.txt", fixture_text("tiny.txt"));
  GraphSourceOptions options;
  options.graph_dirs = {site.path()};
  options.user_graph_files = false;
  GraphSource g;
  EXPECT_EQ(g.job_graph({"resnet-site.txt", "", ""}, options)->name(), "resnet-site");
  for (const char* name : {"../etc/passwd", "/etc/hostname"})
    EXPECT_NE(error_of([&] {
                g.job_graph({name, "", ""}, options);
              }).find("no graph came"),
              std::string::npos);
  EXPECT_NE(error_of([&] {
              g.job_graph({mine, compact_user_graph(mine, {}), ""}, options);
            }).find("this site does not accept users' own graph files"),
            std::string::npos);
}

// Admin graph_dirs are read by slurmctld, through plugin/regular_file.h:
// a FIFO there must not block it (O_NONBLOCK, then fstat), a link is not
// followed (O_NOFOLLOW), only a regular file within max_graph_bytes is read.
TEST(GraphSource, AdminGraphDirsAreOpenedSafely) {
  TempDir site, elsewhere;
  site.write("ok.txt", fixture_text("tiny.txt"));
  ASSERT_EQ(::mkfifo(site.file("fifo.txt").c_str(), 0644), 0);
  const std::string target = elsewhere.write("target.txt", fixture_text("tiny.txt"));
  ASSERT_EQ(::symlink(target.c_str(), site.file("link.txt").c_str()), 0);
  ASSERT_EQ(::mkdir(site.file("dir.txt").c_str(), 0755), 0);
  site.write("big.txt", fixture_text("tiny.txt") + std::string(2048, '#'));
  GraphSourceOptions options;
  options.graph_dirs = {site.path()};
  options.limits.max_bytes = 1024;
  GraphSource g;
  EXPECT_EQ(g.job_graph({"ok.txt", "", ""}, options)->name(), "ok");
  const auto refusal = [&](const char* name) {
    return error_of([&] { g.job_graph({name, "", ""}, options); });
  };
  EXPECT_NE(refusal("fifo.txt").find("fifo.txt: cannot read: not a regular file"),
            std::string::npos);
  EXPECT_NE(refusal("link.txt").find("link.txt: cannot read: a symbolic link"), std::string::npos)
      << refusal("link.txt");
  EXPECT_NE(refusal("dir.txt").find("dir.txt: cannot read: not a regular file"), std::string::npos);
  EXPECT_NE(refusal("big.txt").find("larger than the site's limit of 1024 bytes"),
            std::string::npos);
}

// The SPANK plugin reads the user's file in the user's own sbatch: a file the
// user may not read is refused there, by the kernel, and slurmctld never
// sees it (it has no path to open).
TEST(GraphSource, ARootOnlyFileIsRefusedInTheUsersOwnProcess) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (becomes another user)";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string secret = dir.write("secret.txt", fixture_text("tiny.txt"), 0600);
  const std::string group_secret = dir.write("group.txt", fixture_text("tiny.txt"), 0640);
  const std::string open = dir.write("open.txt", fixture_text("tiny.txt"), 0644);
  TempDir closed;  // 0700: a readable file in a directory only root may enter
  const std::string inside = closed.write("inside.txt", fixture_text("tiny.txt"), 0644);
  for (const std::string& path : {secret, group_secret, inside}) {
    const std::string msg = error_as_user(path, kNobody, kNogroup);
    EXPECT_NE(msg.find(path + ": cannot read: Permission denied"), std::string::npos) << msg;
  }
  EXPECT_EQ(error_as_user(open, kNobody, kNogroup), "");
}

// A job that names a file but carries no compact form (a client without the
// SPANK plugin, or a hand-made request) is refused with a message; the path
// is never opened, even where slurmctld could read it.
TEST(GraphSource, AFileWithoutItsCompactFormIsRefusedNotRead) {
  TempDir dir;
  const std::string file = dir.write("tiny.txt", fixture_text("tiny.txt"));
  GraphSource g;
  const std::string msg = error_of([&] { g.job_graph({file, "", ""}, {}); });
  EXPECT_NE(msg.find(file + ": no graph came with the job: slurmctld does not read users' files"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("spank_pacml.so"), std::string::npos) << msg;
  // a bare name is looked up in graph_dirs only
  const std::string bare = error_of([&] { g.job_graph({"tiny.txt", "", ""}, {}); });
  EXPECT_NE(bare.find("tiny.txt: not in the site's graph directories (graph_dirs), and no graph "
                      "came with the job"),
            std::string::npos)
      << bare;
  // the SPANK plugin's own reason, when it could not read the file
  const std::string told = error_of([&] {
    g.job_graph({file, "", "/home/u/x.txt: cannot read: Permission denied"}, {});
  });
  EXPECT_EQ(told, "/home/u/x.txt: cannot read: Permission denied");
  EXPECT_EQ(g.size(), 0u);
}

TEST(GraphSource, LimitsAndNonRegularFiles) {
  {
    TempDir dir;
    GraphSourceOptions small;
    small.limits.max_bytes = 16;
    GraphSource g;
    const std::string big = dir.write("big.txt", fixture_text("tiny.txt"));
    const std::string too_big = error_of([&] { user_graph(g, big, small); });
    EXPECT_NE(too_big.find(big), std::string::npos) << too_big;
    EXPECT_NE(too_big.find("larger than the site's limit of 16 bytes (max_graph_bytes)"),
              std::string::npos)
        << too_big;
    GraphSourceOptions few_ops;
    few_ops.limits.max_ops = 2;  // tiny.txt has more layers
    const std::string too_many = error_of([&] { user_graph(g, big, few_ops); });
    EXPECT_NE(too_many.find(big), std::string::npos) << too_many;
    EXPECT_NE(too_many.find("more than the site's limit of 2 (max_graph_ops)"), std::string::npos)
        << too_many;
    EXPECT_EQ(g.size(), 0u);  // refused graphs are not cached
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    EXPECT_NE(error_of([&] { user_graph(g, fifo); }).find("not a regular file"),
              std::string::npos);  // and it returned: O_NONBLOCK, fstat before any read
    EXPECT_NE(error_of([&] { user_graph(g, "/dev/zero"); }).find("not a regular file"),
              std::string::npos);
    EXPECT_NE(
        error_of([&] { user_graph(g, dir.file("none.txt")); }).find("No such file or directory"),
        std::string::npos);
  }
}

TEST(GraphSource, MalformedGraphsNameTheLineNotTheContents) {
  TempDir dir;
  const std::string bad =
      dir.write("bad.txt",
                "node1 -- Input -- forward_compute_time=TOPSECRET42, "
                "backward_compute_time=0, activation_size=1, parameter_size=0\n");
  GraphSource g;
  const std::string msg = error_of([&] { user_graph(g, bad); });
  EXPECT_NE(msg.find(bad), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a valid PipeDream graph"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("TOPSECRET42"), std::string::npos) << msg;
  const std::string bad_yaml = dir.write("bad.yaml", "pacml_graph: 1\nops: [TOPSECRET43\n");
  const std::string m2 = error_of([&] { user_graph(g, bad_yaml); });
  EXPECT_NE(m2.find("not a valid native (YAML) graph"), std::string::npos) << m2;
  EXPECT_EQ(m2.find("TOPSECRET43"), std::string::npos) << m2;
}

TEST(GraphSource, ACycleIsNamedWithItsFileAndLine) {
  TempDir dir;
  const std::string node =
      " -- L -- forward_compute_time=1, backward_compute_time=1, "
      "activation_size=1, parameter_size=0\n";
  const std::string cyclic =
      dir.write("cyclic.txt", "node1" + node + "node2" + node + "node3" + node +
                                  "\tnode1 -- node2\n\tnode2 -- node3\n\tnode3 -- node2\n");
  GraphSource g;
  const std::string msg = error_of([&] { user_graph(g, cyclic); });
  EXPECT_NE(msg.find(cyclic + ":6: graph has a cycle: node2 -> node3 -> node2"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("not a valid PipeDream graph"), std::string::npos) << msg;
}

}  // namespace
}  // namespace pacml::plugin
