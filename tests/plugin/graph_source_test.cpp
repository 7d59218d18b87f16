// Reading graphs: zoo models, admin directories, users' files with the
// user's rights, limits, and messages that never echo file contents.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/util/error.h"
#include "plugin/graph_source.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::error_of;
using testing::TempDir;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// Runs `body` once with each reader of users' files (plugin/user_file.h),
// then restores the probed one.
void with_each_reader(const std::function<void(const char*)>& body) {
  const UserFileReader probed = user_file_reader();
  for (auto [reader, name] :
       {std::pair{UserFileReader::kThread, "thread"}, std::pair{UserFileReader::kFork, "fork"}}) {
    force_user_file_reader(reader);
    body(name);
  }
  force_user_file_reader(probed);
}

// "Uid:" or "Gid:" of a thread of this process: real, effective, saved, fs.
std::string thread_ids(pid_t tid, const std::string& which) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(which, 0) == 0) {
      std::istringstream fields(line.substr(which.size()));
      std::string a, b, c, d;
      fields >> a >> b >> c >> d;
      return a + " " + b + " " + c + " " + d;
    }
  return "?";
}

std::vector<gid_t> my_groups() {
  std::vector<gid_t> groups(static_cast<size_t>(::getgroups(0, nullptr)));
  groups.resize(static_cast<size_t>(::getgroups(static_cast<int>(groups.size()), groups.data())));
  return groups;
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
  const UserIdentity me{::getuid(), ::getgid(), ""};
  const JobGraphPtr a = g.graph_file(txt, me, {});
  EXPECT_EQ(a->name(), "tiny");
  EXPECT_EQ(g.graph_file(txt, me, {}), a);  // cached
  EXPECT_EQ(g.graph_file(yaml, me, {})->name(), "tiny-mlp");
  // relative to the job's working directory
  EXPECT_EQ(g.graph_file("tiny.txt", UserIdentity{::getuid(), ::getgid(), dir.path()}, {}), a);
}

TEST(GraphSource, DistinctContentsNeverShareAFingerprint) {
  // The fingerprint keys the lookahead and policy caches. A content hash
  // (FNV-1a) could be forged by a crafted file; GraphSource compares texts
  // in full and numbers each distinct one, so equal graph values in another
  // file, a one-byte difference or an evicted-and-reread graph all get their
  // own number, and only the same text under the same name shares one.
  TempDir da, db, dc;
  const std::string text = fixture_text("tiny.txt");
  const std::string a = da.write("tiny.txt", text), b = db.write("tiny.txt", text);
  const std::string c = dc.write("tiny.txt", text + "\n");
  GraphSource g;
  const UserIdentity me{::getuid(), ::getgid(), ""};
  const JobGraphPtr ga = g.graph_file(a, me, {});
  EXPECT_EQ(g.graph_file(b, me, {}), ga);  // same text, same model name
  const JobGraphPtr gc = g.graph_file(c, me, {});
  EXPECT_NE(gc->fingerprint(), ga->fingerprint());
  EXPECT_NE(ga->fingerprint(), make_job_graph(ga->layers())->fingerprint());  // not the FNV
}

TEST(GraphSource, TheCacheStaysWithinItsBytes) {
  TempDir dir;
  const std::string text = fixture_text("tiny.txt");
  const UserIdentity me{::getuid(), ::getgid(), ""};
  GraphSource probe;
  probe.graph_file(dir.write("g0.txt", text), me, {});
  const size_t one = probe.bytes();  // the cost of one such graph
  GraphSource g(2 * one + one / 2);
  std::vector<JobGraphPtr> seen;
  for (int i = 0; i < 6; ++i)
    seen.push_back(g.graph_file(dir.write("g" + std::to_string(i) + ".txt", text), me, {}));
  EXPECT_LE(g.bytes(), 2 * one + one / 2);
  EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(g.graph_file(dir.file("g5.txt"), me, {}), seen[5]);        // recent: kept
  const JobGraphPtr again = g.graph_file(dir.file("g0.txt"), me, {});  // evicted: read again
  EXPECT_NE(again, seen[0]);
  EXPECT_NE(again->fingerprint(), seen[0]->fingerprint());
}

TEST(GraphSource, AdminDirectoriesServeBareNamesOnly) {
  TempDir site, other;
  site.write("resnet-site.txt", fixture_text("tiny.txt"));
  GraphSourceOptions options;
  options.graph_dirs = {site.path()};
  options.user_graph_files = false;
  GraphSource g;
  const UserIdentity user{kNobody, kNogroup, other.path()};
  EXPECT_EQ(g.graph_file("resnet-site.txt", user, options)->name(), "resnet-site");
  EXPECT_NE(error_of([&] {
              g.graph_file("../etc/passwd", user, options);
            }).find("does not read users' own graph files"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              g.graph_file("/etc/hostname", user, options);
            }).find("does not read users' own graph files"),
            std::string::npos);
}

TEST(GraphSource, RootOnlyFileIsRefusedForAUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (reads as another user)";
  with_each_reader([](const char* reader) {
    SCOPED_TRACE(reader);
    TempDir dir;
    ::chmod(dir.path().c_str(), 0755);
    const std::string secret = dir.write("secret.txt", fixture_text("tiny.txt"), 0600);
    const std::string open = dir.write("open.txt", fixture_text("tiny.txt"), 0644);
    GraphSource g;
    const UserIdentity nobody{kNobody, kNogroup, ""};
    const std::string msg = error_of([&] { g.graph_file(secret, nobody, {}); });
    EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
    EXPECT_NE(msg.find(secret), std::string::npos);
    // group root, mode 0640: root's groups must not leak to the reader either
    const std::string group_secret = dir.write("group.txt", fixture_text("tiny.txt"), 0640);
    EXPECT_NE(error_of([&] { g.graph_file(group_secret, nobody, {}); }).find("Permission denied"),
              std::string::npos);
    // a readable file in a directory only root may enter
    TempDir closed;  // 0700
    const std::string inside = closed.write("inside.txt", fixture_text("tiny.txt"), 0644);
    EXPECT_NE(error_of([&] { g.graph_file(inside, nobody, {}); }).find("Permission denied"),
              std::string::npos);
    // a file nobody may read works
    EXPECT_EQ(g.graph_file(open, nobody, {})->name(), "open");
    // ... and root-only contents are not served from the cache to nobody
    GraphSource fresh;
    fresh.graph_file(secret, UserIdentity{0, 0, ""}, {});
    EXPECT_NE(error_of([&] { fresh.graph_file(secret, nobody, {}); }).find("Permission denied"),
              std::string::npos);
  });
}

// A thread of slurmctld may enter slurmctld's own /proc entries (its maps,
// its open files' links) where the user could not: those are refused.
TEST(GraphSource, SlurmctldsOwnProcEntriesAreRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (reads as another user)";
  with_each_reader([](const char* reader) {
    SCOPED_TRACE(reader);
    TempDir closed;  // 0700: nobody cannot reach the file by its path
    const std::string inside = closed.write("inside.txt", fixture_text("tiny.txt"), 0644);
    const int fd = ::open(inside.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    GraphSource g;
    const UserIdentity nobody{kNobody, kNogroup, ""};
    const std::string pid = std::to_string(::getpid());
    for (const std::string& path : std::vector<std::string>{
             "/proc/" + pid + "/fd/" + std::to_string(fd), "/proc/self/fd/" + std::to_string(fd),
             "/proc/" + pid + "/maps", "/proc/self/maps"}) {
      const std::string msg = error_of([&] { g.graph_file(path, nobody, {}); });
      EXPECT_NE(msg.find(path + ": cannot read: "), std::string::npos) << msg;
    }
    ::close(fd);
    const std::string maps = error_of([&] { g.graph_file("/proc/self/maps", UserIdentity{}, {}); });
    EXPECT_NE(maps.find("a /proc file"), std::string::npos) << maps;
  });
}

// The thread reader takes the user's ids for itself alone: the thread that
// asked and every other thread keep root's, its own real and saved uid stay
// root's (so the user cannot signal or ptrace it), and the process stays
// dumpable for core files.
TEST(GraphSource, TheReadingThreadAloneTakesTheUsersIds) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (reads as another user)";
  const UserFileReader probed = user_file_reader();
  ASSERT_EQ(probed, UserFileReader::kThread) << describe_user_file_reader();
  ASSERT_EQ(::prctl(PR_SET_DUMPABLE, 1), 0);
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string open = dir.write("open.txt", fixture_text("tiny.txt"), 0644);
  const std::vector<gid_t> groups_before = my_groups();

  std::mutex m;
  std::condition_variable cv;
  int stage = 0;  // 1: the reader holds nobody's ids; 2: checked
  pid_t reader_tid = 0;
  std::string reader_uids, reader_gids;
  set_user_ids_hook([&] {
    std::unique_lock<std::mutex> lock(m);
    reader_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    reader_uids = thread_ids(reader_tid, "Uid:");
    reader_gids = thread_ids(reader_tid, "Gid:");
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
  });
  std::atomic<pid_t> caller_tid{0};
  std::string text;
  std::thread caller([&] {
    caller_tid = static_cast<pid_t>(::syscall(SYS_gettid));
    text = read_file_as_user(open, UserIdentity{kNobody, kNogroup, ""}, 1 << 20, 5);
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return stage == 1; });
    EXPECT_EQ(reader_uids, "0 65534 0 65534");  // real, effective, saved, fs
    EXPECT_EQ(reader_gids, "0 65534 0 65534");
    EXPECT_EQ(::geteuid(), 0u);  // this thread
    EXPECT_EQ(::getegid(), 0u);
    EXPECT_EQ(my_groups(), groups_before);
    EXPECT_EQ(thread_ids(static_cast<pid_t>(::syscall(SYS_gettid)), "Uid:"), "0 0 0 0");
    EXPECT_EQ(thread_ids(caller_tid, "Uid:"), "0 0 0 0");  // the one waiting for the read
    EXPECT_EQ(thread_ids(caller_tid, "Gid:"), "0 0 0 0");
    stage = 2;
    cv.notify_all();
  }
  caller.join();
  set_user_ids_hook(nullptr);
  EXPECT_EQ(text, fixture_text("tiny.txt"));
  EXPECT_EQ(::prctl(PR_GET_DUMPABLE), 1);
  EXPECT_EQ(my_groups(), groups_before);
}

TEST(GraphSource, AHangingReadTimesOutAndItsThreadEnds) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (reads as another user)";
  if (user_file_reader() != UserFileReader::kThread) GTEST_SKIP() << describe_user_file_reader();
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string open = dir.write("open.txt", fixture_text("tiny.txt"), 0644);
  set_user_ids_hook([] { std::this_thread::sleep_for(std::chrono::milliseconds(400)); });
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of([&] {
    read_file_as_user(open, UserIdentity{kNobody, kNogroup, ""}, 1 << 20, 0.1);
  });
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(msg.find(open + ": cannot read: timed out"), std::string::npos) << msg;
  EXPECT_LT(waited, 0.35);
  EXPECT_TRUE(wait_for_user_file_readers(5));
  set_user_ids_hook(nullptr);
  EXPECT_EQ(::geteuid(), 0u);
}

TEST(GraphSource, LimitsAndNonRegularFiles) {
  with_each_reader([](const char* reader) {
    SCOPED_TRACE(reader);
    TempDir dir;
    GraphSourceOptions small;
    small.max_bytes = 16;
    GraphSource g;
    const UserIdentity me{::getuid(), ::getgid(), ""};
    const std::string big = dir.write("big.txt", fixture_text("tiny.txt"));
    const std::string too_big = error_of([&] { g.graph_file(big, me, small); });
    EXPECT_NE(too_big.find(big), std::string::npos) << too_big;
    EXPECT_NE(too_big.find("larger than the site's limit of 16 bytes (max_graph_bytes)"),
              std::string::npos)
        << too_big;
    GraphSourceOptions few_ops;
    few_ops.max_ops = 2;  // tiny.txt has more layers
    const std::string too_many = error_of([&] { g.graph_file(big, me, few_ops); });
    EXPECT_NE(too_many.find(big), std::string::npos) << too_many;
    EXPECT_NE(too_many.find("more than the site's limit of 2 (max_graph_ops)"), std::string::npos)
        << too_many;
    EXPECT_EQ(g.size(), 0u);  // refused graphs are not cached
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    EXPECT_NE(error_of([&] { g.graph_file(fifo, me, {}); }).find("not a regular file"),
              std::string::npos);
    EXPECT_NE(error_of([&] { g.graph_file("/dev/zero", me, {}); }).find("not a regular file"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                g.graph_file(dir.file("none.txt"), me, {});
              }).find("No such file or directory"),
              std::string::npos);
  });
}

TEST(GraphSource, MalformedGraphsNameTheLineNotTheContents) {
  TempDir dir;
  const std::string bad =
      dir.write("bad.txt",
                "node1 -- Input -- forward_compute_time=TOPSECRET42, "
                "backward_compute_time=0, activation_size=1, parameter_size=0\n");
  GraphSource g;
  const std::string msg = error_of([&] {
    g.graph_file(bad, UserIdentity{::getuid(), ::getgid(), ""}, {});
  });
  EXPECT_NE(msg.find(bad), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a valid PipeDream graph"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("TOPSECRET42"), std::string::npos) << msg;
  const std::string bad_yaml = dir.write("bad.yaml", "pacml_graph: 1\nops: [TOPSECRET43\n");
  const std::string m2 = error_of([&] {
    g.graph_file(bad_yaml, UserIdentity{::getuid(), ::getgid(), ""}, {});
  });
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
  const std::string msg = error_of([&] {
    g.graph_file(cyclic, UserIdentity{::getuid(), ::getgid(), ""}, {});
  });
  EXPECT_NE(msg.find(cyclic + ":6: graph has a cycle: node2 -> node3 -> node2"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("not a valid PipeDream graph"), std::string::npos) << msg;
}

}  // namespace
}  // namespace pacml::plugin
