// Files slurmctld reads for a job (the admin's graph_dirs, and users' files
// once opened with their rights: plugin/user_file.h), checked through the
// descriptor so that nothing but a bounded regular file is ever read: a FIFO
// or a device would block slurmctld, a /proc file would show slurmctld's own
// state, and a large file would cost its memory and time.
#pragma once

#include <optional>
#include <string>

namespace pacml::plugin {

// Status codes besides errno values.
constexpr int kNotRegular = -1;
constexpr int kTooLarge = -2;
constexpr int kProcFile = -3;

// Regular, not under /proc, at most `max_bytes`: 0 or a status code. Only
// async-signal-safe calls (a forked child runs it).
int check_opened_file(int fd, long max_bytes);

// check_opened_file, then the whole file into `data`: 0, an errno value or
// a status code (kTooLarge also if it grew while being read).
int read_opened_file(int fd, long max_bytes, std::string& data);

// What a status (errno value or code) means, for a message.
std::string describe_file_status(int status, long max_bytes);

// Opens `path` with O_NONBLOCK and O_NOFOLLOW (a FIFO cannot block, a link is
// not followed), then reads it as read_opened_file does. nullopt if there is
// no such file; throws InputError(path, "cannot read: …") for anything else
// that keeps it from being read.
std::optional<std::string> read_regular_file(const std::string& path, long max_bytes);

}  // namespace pacml::plugin
