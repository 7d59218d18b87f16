#include "plugin/graph_source.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/graph/graph_files.h"
#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/zoo/model_zoo.h"

namespace pacml::plugin {
namespace {

// Child status codes written before the file contents.
constexpr int kNotRegular = -1;
constexpr int kTooLarge = -2;

std::vector<gid_t> user_groups(uid_t uid, gid_t gid) {
  std::vector<gid_t> groups{gid};
  std::vector<char> buf(16384);
  struct passwd pw {};
  struct passwd* result = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &result) != 0 || result == nullptr)
    return groups;
  int n = 64;
  groups.resize(n);
  if (getgrouplist(pw.pw_name, gid, groups.data(), &n) < 0) {
    groups.resize(n);
    if (getgrouplist(pw.pw_name, gid, groups.data(), &n) < 0) return {gid};
  }
  groups.resize(n);
  return groups;
}

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t w = ::write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, size -= static_cast<size_t>(w);
  }
  return true;
}

// Runs in the forked child: only async-signal-safe calls, no allocation.
[[noreturn]] void child_read(int out, const char* path, uid_t uid, gid_t gid, const gid_t* groups,
                             size_t ngroups, long max_bytes) {
  int status = 0;
  if (::setgroups(ngroups, groups) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 ||
      (uid != 0 && ::setuid(0) == 0)) {
    status = EPERM;
    write_all(out, &status, sizeof status);
    _exit(1);
  }
  const int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    status = errno;
    write_all(out, &status, sizeof status);
    _exit(1);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = kNotRegular;
    write_all(out, &status, sizeof status);
    _exit(1);
  }
  if (st.st_size > max_bytes) {
    status = kTooLarge;
    write_all(out, &status, sizeof status);
    _exit(1);
  }
  write_all(out, &status, sizeof status);
  char buf[8192];
  long total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += n;
    if (total > max_bytes) break;  // grew while reading: the parent notices
    if (!write_all(out, buf, static_cast<size_t>(n))) break;
  }
  _exit(0);
}

std::string describe_status(int status, long max_bytes) {
  if (status == kNotRegular) return "not a regular file";
  if (status == kTooLarge)
    return "larger than the site's limit of " + std::to_string(max_bytes) +
           " bytes (max_graph_bytes)";
  return std::strerror(status);
}

bool safe_bare_name(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  return name != "." && name != "..";
}

// The problems of a graph's shape (core/graph/layer_graph.cpp's checks),
// which name only layers, never values: told to the user as they are, so a
// cycle says which layers form it. "" for any other error.
std::string structural_problem(const InputError& e) {
  std::string text = e.what();
  if (!e.where().empty() && text.rfind(e.where() + ": ", 0) == 0)
    text = text.substr(e.where().size() + 2);
  for (const char* kind : {"graph has a cycle: ", "self loop on ", "duplicate edge ",
                           "edge from unknown node ", "edge to unknown node ",
                           "edge refers to a layer that does not exist", "output layer is not set"})
    if (text.rfind(kind, 0) == 0)
      return text + " (the graph must be acyclic: see the plugin README for the formats)";
  return "";
}

// Parses graph text; errors keep only the location, never the file's text
// (values could be anything the user's file holds), except the shape
// problems above.
LayerGraph parse_graph_text(const std::string& text, const std::string& path, long max_ops) {
  bool native = false;
  for (const char* ext : {".yaml", ".yml"})
    if (path.size() >= std::strlen(ext) &&
        path.compare(path.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      native = true;
  if (!native) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const std::string_view t = trim(line);
      if (t.empty() || t.front() == '#') continue;
      native = t.rfind("pacml_graph", 0) == 0;
      break;
    }
  }
  LayerGraph g;
  try {
    std::istringstream in(text);
    g = native ? read_native_graph(in, path) : read_pipedream(in, path);
    if (!native || g.model_name.empty()) g.model_name = model_name_from_path(path);
    g.validate(path);  // the errors JobGraph's constructor would raise, worded below
  } catch (const InputError& e) {
    const std::string& where = e.where().empty() ? path : e.where();
    if (const std::string shape = structural_problem(e); !shape.empty())
      throw InputError(where, shape);
    throw InputError(where, std::string("not a valid ") +
                                (native ? "native (YAML) graph" : "PipeDream graph") +
                                " file (see the plugin README for the formats)");
  }
  // Parsing is bounded by max_graph_bytes; the decision's work grows with
  // the layers, so they are bounded too (plugin/README.md, "Cost bounds").
  if (g.num_layers() > max_ops)
    throw InputError(path, "cannot use: " + std::to_string(g.num_layers()) +
                               " layers, more than the site's limit of " + std::to_string(max_ops) +
                               " (max_graph_ops)");
  return g;
}

}  // namespace

std::string read_file_as_user(const std::string& path, const UserIdentity& user, long max_bytes,
                              double timeout) {
  if (::geteuid() != 0 && user.uid != ::geteuid())
    throw InputError(path,
                     "this site does not read users' own graph files (slurmctld cannot "
                     "switch to the user); use a name from the admin's graph directories "
                     "or --pacml-model");
  const std::vector<gid_t> groups = user_groups(user.uid, user.gid);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw InputError(path, std::string("cannot read: pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]), ::close(fds[1]);
    throw InputError(path, std::string("cannot read: fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_read(fds[1], path.c_str(), user.uid, user.gid, groups.data(), groups.size(), max_bytes);
  }
  ::close(fds[1]);
  std::string data;
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  char buf[8192];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p {
      fds[0], POLLIN, 0
    };
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (static_cast<long>(data.size()) > max_bytes + static_cast<long>(sizeof(int))) break;
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) throw InputError(path, "cannot read: timed out");
  if (data.size() < sizeof(int)) throw InputError(path, "cannot read: the reader failed");
  int status = 0;
  std::memcpy(&status, data.data(), sizeof status);
  if (status != 0) throw InputError(path, "cannot read: " + describe_status(status, max_bytes));
  data.erase(0, sizeof status);
  if (static_cast<long>(data.size()) > max_bytes)
    throw InputError(path, "cannot read: " + describe_status(kTooLarge, max_bytes));
  return data;
}

JobGraphPtr GraphSource::lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const JobGraphPtr* g = cache_.find(key);
  return g ? *g : nullptr;
}

JobGraphPtr GraphSource::insert(const std::string& key, LayerGraph layers, size_t text_bytes) {
  // Serials are never reused: graphs of different contents never share a
  // fingerprint, even after an eviction, so neither do their entries in the
  // lookahead and policy caches (which are keyed by it).
  static std::atomic<std::uint64_t> next_serial{1};
  // What a parsed graph costs beyond its text: each layer, its forward and
  // backward step-graph ops and their edges. A conservative estimate: `pacml
  // estimate --graph` grows by ~5 KB per layer of a chain, working memory
  // included.
  constexpr size_t kBytesPerLayer = 4096;
  const size_t bytes = text_bytes + kBytesPerLayer * layers.layers.size();
  JobGraphPtr g = make_job_graph(std::move(layers), next_serial++);
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.insert(key, g, bytes);
  return g;
}

size_t GraphSource::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size();
}

size_t GraphSource::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.bytes();
}

JobGraphPtr GraphSource::zoo_model(const std::string& name) {
  const std::string key = "zoo:" + name;
  if (JobGraphPtr g = lookup(key)) return g;
  if (!is_zoo_model(name)) zoo_model_info(name);  // throws "unknown model … known: …"
  return insert(key, build_zoo_model(name).graph, 0);
}

JobGraphPtr GraphSource::graph_file(const std::string& name, const UserIdentity& user,
                                    const GraphSourceOptions& options, std::string* resolved) {
  std::string text, path;
  if (safe_bare_name(name)) {
    // An admin directory first (read with slurmctld's rights: admin content).
    for (const std::string& dir : options.graph_dirs) {
      const std::string candidate = dir + "/" + name;
      struct stat st;
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_size > options.max_bytes)
          throw InputError(candidate,
                           "cannot read: " + describe_status(kTooLarge, options.max_bytes));
        path = candidate;
        break;
      }
    }
    if (!path.empty()) {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
      std::ostringstream all;
      all << in.rdbuf();
      text = all.str();
    }
  }
  if (path.empty()) {
    if (!options.user_graph_files)
      throw InputError(name,
                       "graph file not found in the site's graph directories (this site "
                       "does not read users' own graph files)");
    path = name;
    if (path[0] != '/') {
      if (user.work_dir.empty() || user.work_dir[0] != '/')
        throw InputError(name, "give an absolute path (no working directory known)");
      path = user.work_dir + "/" + name;
    }
    text = read_file_as_user(path, user, options.max_bytes, options.read_timeout);
  }
  if (resolved) *resolved = path;
  // The whole text is the key, with the model name (from the path) behind
  // its length so that no name and text can spell another pair's key.
  const std::string model = model_name_from_path(path);
  const std::string key = "file:" + std::to_string(model.size()) + ":" + model + text;
  if (JobGraphPtr g = lookup(key)) return g;
  return insert(key, parse_graph_text(text, path, options.max_ops), text.size());
}

}  // namespace pacml::plugin
