// Reading a file a user names with exactly that user's rights
// (plugin/README.md, "Security").
//
// slurmctld runs as root; a path in a job request must open only if the
// job's owner could open it. Two readers, chosen once per process:
//  * a thread (the default on Linux): a short-lived thread takes the user's
//    supplementary groups, effective gid and effective uid for itself alone
//    through the raw syscalls (glibc's setuid() and friends would apply them
//    to every thread of slurmctld), opens the file, takes root back and reads
//    through the descriptor. Its real and saved ids stay root's, so the user
//    can neither signal nor ptrace it meanwhile. About 0.1 ms.
//  * a forked child (the fallback where a thread cannot take a user's ids):
//    switches to the user for good and sends the bytes through a pipe; 15-20
//    ms in a large slurmctld, whose page tables the fork copies.
// Both accept only regular files of at most max_bytes, opened non-blocking
// (no FIFO or device can hang slurmctld), nothing under /proc (a thread of
// slurmctld would see slurmctld's own /proc entries, which the user cannot),
// and give up after `timeout` seconds.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace pacml::plugin {

enum class UserFileReader { kThread, kFork };

// Whose rights a user file is read with.
struct UserIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::string work_dir;  // for relative paths ("" = none)
};

// Reads `path` as `user` (see above); throws InputError(path, reason) on any
// failure (permission, not a regular file, too large, timeout).
std::string read_file_as_user(const std::string& path, const UserIdentity& user, long max_bytes,
                              double timeout);

// The reader in use: probed on first use (a thread takes nobody's ids while
// this one checks that its own did not change), then fixed.
UserFileReader user_file_reader();
// For slurmctld's log at load: which reader, and why not the thread.
std::string describe_user_file_reader();

// Waits up to `seconds` for reading threads whose callers gave up (fini(),
// before Slurm unloads the plugin); false if some still run.
bool wait_for_user_file_readers(double seconds);

// Tests only: use `reader` from now on; and a function the reading thread
// calls while it holds the user's ids (nullptr = none).
void force_user_file_reader(UserFileReader reader);
void set_user_ids_hook(std::function<void()> hook);

}  // namespace pacml::plugin
