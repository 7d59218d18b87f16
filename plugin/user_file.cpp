#include "plugin/user_file.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "core/util/error.h"
#include "plugin/regular_file.h"

namespace pacml::plugin {
namespace {

// A reader status code besides errno values and plugin/regular_file.h's.
constexpr int kNoSwitch = -4;

constexpr int kOpenFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

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

std::string describe_status(int status, long max_bytes) {
  if (status == kNoSwitch) return "slurmctld could not take the user's rights to read it";
  return describe_file_status(status, max_bytes);
}

// openat2 with RESOLVE_NO_MAGICLINKS: /proc/self/fd/N reopens a file that
// slurmctld holds open (the thread's process; the forked child inherited it)
// without the directory permissions on its path, which the user might lack.
// Without openat2 (Linux < 5.6) the child opens as before. Async-signal-safe.
int open_no_magic_links(const char* path) {
  struct open_how how {};
  how.flags = kOpenFlags;
  how.resolve = RESOLVE_NO_MAGICLINKS;
  const int fd = static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how));
  return fd < 0 && errno == ENOSYS ? ::open(path, kOpenFlags) : fd;
}

// ---- the forked child ----------------------------------------------------------

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

// Runs in the forked child: only async-signal-safe calls, no allocation. It
// becomes the user for good (and checks root cannot be taken back).
[[noreturn]] void child_read(int out, const char* path, uid_t uid, gid_t gid, const gid_t* groups,
                             size_t ngroups, long max_bytes) {
  int status = 0;
  if (::setgroups(ngroups, groups) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0 ||
      (uid != 0 && ::setuid(0) == 0)) {
    status = kNoSwitch;
    write_all(out, &status, sizeof status);
    _exit(1);
  }
  const int fd = open_no_magic_links(path);
  status = fd < 0 ? errno : check_opened_file(fd, max_bytes);
  write_all(out, &status, sizeof status);
  if (status != 0) _exit(1);
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

// The child's bytes (status first) until EOF or `timeout`; kills it then.
std::string collect_child(int in, pid_t pid, long max_bytes, double timeout, bool& timed_out) {
  std::string data;
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
      in, POLLIN, 0
    };
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    const ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (static_cast<long>(data.size()) > max_bytes + static_cast<long>(sizeof(int))) break;
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  return data;
}

std::string read_in_child(const std::string& path, const UserIdentity& user,
                          const std::vector<gid_t>& groups, long max_bytes, double timeout) {
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
  bool timed_out = false;
  std::string data = collect_child(fds[0], pid, max_bytes, timeout, timed_out);
  ::close(fds[0]);
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

// ---- the thread ----------------------------------------------------------------
// Linux keeps credentials per thread; glibc's set*id() wrappers apply a change
// to every thread of the process, the raw syscalls only to the caller. Only
// the effective ids change: real and saved stay root's, so this thread can
// take root back, and the user cannot signal or ptrace it (the kernel checks
// the target's real and saved uids for both).

struct Ids {
  uid_t euid = 0;
  gid_t egid = 0;
  std::vector<gid_t> groups;
};

// The calling thread's (the raw syscalls: glibc caches nothing, but be exact).
bool current_ids(Ids& ids) {
  ids.euid = static_cast<uid_t>(::syscall(SYS_geteuid));
  ids.egid = static_cast<gid_t>(::syscall(SYS_getegid));
  const long n = ::syscall(SYS_getgroups, 0, nullptr);
  if (n < 0) return false;
  ids.groups.resize(static_cast<size_t>(n));
  return ::syscall(SYS_getgroups, n, ids.groups.data()) == n;
}

bool take_ids(uid_t uid, gid_t gid, const std::vector<gid_t>& groups) {
  const auto keep = static_cast<uid_t>(-1);
  return ::syscall(SYS_setgroups, groups.size(), groups.data()) == 0 &&
         ::syscall(SYS_setresgid, keep, gid, keep) == 0 &&
         ::syscall(SYS_setresuid, keep, uid, keep) == 0 &&
         static_cast<uid_t>(::syscall(SYS_geteuid)) == uid &&
         static_cast<gid_t>(::syscall(SYS_getegid)) == gid;
}

bool restore_ids(const Ids& ids) {
  const auto keep = static_cast<uid_t>(-1);
  return ::syscall(SYS_setresuid, keep, ids.euid, keep) == 0 &&
         ::syscall(SYS_setresgid, keep, ids.egid, keep) == 0 &&
         ::syscall(SYS_setgroups, ids.groups.size(), ids.groups.data()) == 0;
}

// Changing a thread's effective uid makes the kernel mark the whole process
// not dumpable (no core file for slurmctld from then on). It is set back once
// no reader holds a user's ids: while one does, a dumpable process would hand
// that thread's /proc entries to the user.
std::mutex g_ids_mutex;
int g_switched = 0;
int g_dumpable = -1;  // slurmctld's setting before the first switch

std::function<void()> g_ids_hook;  // tests

bool enter_user_ids(const UserIdentity& user, const std::vector<gid_t>& groups, const Ids& root) {
  std::lock_guard<std::mutex> lock(g_ids_mutex);
  if (g_switched == 0) g_dumpable = ::prctl(PR_GET_DUMPABLE);
  if (!take_ids(user.uid, user.gid, groups)) {
    restore_ids(root);
    if (g_switched == 0 && g_dumpable > 0) ::prctl(PR_SET_DUMPABLE, g_dumpable);
    return false;
  }
  ++g_switched;
  return true;
}

void leave_user_ids(const Ids& root) {
  std::lock_guard<std::mutex> lock(g_ids_mutex);
  // If root cannot be taken back (the kernel out of memory), this thread
  // still holds only the user's rights: it reads through the open
  // descriptor and ends, and slurmctld stays not dumpable for good.
  if (!restore_ids(root)) return;
  if (--g_switched == 0 && g_dumpable > 0) ::prctl(PR_SET_DUMPABLE, g_dumpable);
}

// One read, shared by the caller (who may give up) and its thread.
struct ThreadRead {
  std::string path;
  UserIdentity user;
  std::vector<gid_t> groups;
  long max_bytes = 0;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  int status = 0;
  std::string data;
};

// Threads still reading after their caller gave up (a hung file system):
// beyond a few, users' files are refused rather than piling threads up.
std::atomic<int> g_in_flight{0};
constexpr int kMaxInFlight = 8;

// Opens as the user, then checks and reads as root through the descriptor.
int open_as_user(const ThreadRead& r, int& fd) {
  Ids root;
  if (!current_ids(root) || !enter_user_ids(r.user, r.groups, root)) return kNoSwitch;
  if (g_ids_hook) g_ids_hook();
  fd = open_no_magic_links(r.path.c_str());
  const int err = errno;
  leave_user_ids(root);
  return fd < 0 ? err : 0;
}

void run_read(ThreadRead& r) {
  int fd = -1;
  std::string data;
  int status = open_as_user(r, fd);
  if (status == 0) status = read_opened_file(fd, r.max_bytes, data);
  if (fd >= 0) ::close(fd);
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.status = status;
    r.data = std::move(data);
    r.done = true;
  }
  r.finished.notify_all();
}

// A plain pthread (not std::thread, whose trampoline lives in this library):
// once g_in_flight drops, only this function's return runs here, so fini()
// can wait for it before Slurm unloads the plugin.
void* thread_main(void* arg) {
  {
    std::unique_ptr<std::shared_ptr<ThreadRead>> r(static_cast<std::shared_ptr<ThreadRead>*>(arg));
    run_read(**r);
  }
  g_in_flight.fetch_sub(1);
  return nullptr;
}

void start_thread(const std::shared_ptr<ThreadRead>& r) {
  auto* arg = new std::shared_ptr<ThreadRead>(r);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  ++g_in_flight;
  const int err = pthread_create(&thread, &attr, thread_main, arg);
  pthread_attr_destroy(&attr);
  if (err != 0) {
    --g_in_flight;
    delete arg;
    throw InputError(r->path,
                     std::string("cannot read: cannot start a thread: ") + std::strerror(err));
  }
}

std::string read_in_thread(const std::string& path, const UserIdentity& user,
                           std::vector<gid_t> groups, long max_bytes, double timeout) {
  if (g_in_flight.load() >= kMaxInFlight)
    throw InputError(path, "cannot read: " + std::to_string(kMaxInFlight) +
                               " earlier reads of users' files have not finished (a file "
                               "system hangs?)");
  auto r = std::make_shared<ThreadRead>();
  r->path = path, r->user = user, r->groups = std::move(groups), r->max_bytes = max_bytes;
  start_thread(r);
  std::unique_lock<std::mutex> lock(r->mutex);
  if (!r->finished.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return r->done; }))
    throw InputError(path, "cannot read: timed out");  // the thread ends on its own
  if (r->status != 0)
    throw InputError(path, "cannot read: " + describe_status(r->status, max_bytes));
  return std::move(r->data);
}

// ---- choosing the reader ---------------------------------------------------------

// "" if a thread can take nobody's ids while this thread's stay as they are;
// else why not.
std::string probe_thread_reader() {
  if (::geteuid() != 0) return "slurmctld is not root";
  struct open_how how {};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_MAGICLINKS;
  const int fd = static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how));
  if (fd < 0) return std::string("openat2: ") + std::strerror(errno) + " (Linux 5.6 or later)";
  ::close(fd);
  Ids before;
  if (!current_ids(before)) return "getgroups failed";
  std::mutex m;
  std::condition_variable cv;
  int stage = 0;  // 1: the thread holds nobody's ids; 2: checked; 3: done
  std::string failure;
  std::thread probe([&] {
    Ids root;
    const UserIdentity nobody{65534, 65534, ""};
    const bool ok = current_ids(root) && enter_user_ids(nobody, {65534}, root);
    std::unique_lock<std::mutex> lock(m);
    if (!ok) failure = "a thread could not take another user's ids";
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
    if (ok) leave_user_ids(root);
    Ids after;
    if (ok && (!current_ids(after) || after.euid != root.euid || after.egid != root.egid))
      failure = "a thread could not take root back";
    stage = 3;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return stage == 1; });
    Ids now;
    if (!current_ids(now) || now.euid != before.euid || now.egid != before.egid ||
        now.groups != before.groups)
      failure = "another thread's ids changed with the reader's";
    stage = 2;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 3; });
  }
  probe.join();
  return failure;
}

struct ReaderChoice {
  UserFileReader reader = UserFileReader::kFork;
  std::string why_not_thread;
};

ReaderChoice& choice() {
  static ReaderChoice c = [] {
    ReaderChoice r;
    r.why_not_thread = probe_thread_reader();
    r.reader = r.why_not_thread.empty() ? UserFileReader::kThread : UserFileReader::kFork;
    return r;
  }();
  return c;
}

}  // namespace

UserFileReader user_file_reader() {
  return choice().reader;
}

std::string describe_user_file_reader() {
  if (::geteuid() != 0)
    return "users' own graph files are refused (slurmctld is not root and cannot take a "
           "user's rights)";
  const ReaderChoice& c = choice();
  if (c.reader == UserFileReader::kThread)
    return "users' graph files are read by a thread with the user's ids";
  return "users' graph files are read in a forked child with the user's ids" +
         (c.why_not_thread.empty() ? std::string()
                                   : " (no thread reader: " + c.why_not_thread + ")");
}

void force_user_file_reader(UserFileReader reader) {
  choice().reader = reader;
}

bool wait_for_user_file_readers(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (g_in_flight.load() > 0) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1));  // their last return
  return true;
}

void set_user_ids_hook(std::function<void()> hook) {
  g_ids_hook = std::move(hook);
}

std::string read_file_as_user(const std::string& path, const UserIdentity& user, long max_bytes,
                              double timeout) {
  if (::geteuid() != 0 && user.uid != ::geteuid())
    throw InputError(path,
                     "this site does not read users' own graph files (slurmctld cannot "
                     "switch to the user); use a name from the admin's graph directories "
                     "or --pacml-model");
  std::vector<gid_t> groups = user_groups(user.uid, user.gid);
  if (::geteuid() == 0 && user_file_reader() == UserFileReader::kThread)
    return read_in_thread(path, user, std::move(groups), max_bytes, timeout);
  return read_in_child(path, user, groups, max_bytes, timeout);
}

}  // namespace pacml::plugin
