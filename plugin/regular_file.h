// Graph files read for a job: the admin's graph_dirs by slurmctld, and the
// user's own file by the SPANK plugin in the user's sbatch/salloc/srun
// (plugin/user_graph.h). Checked through the descriptor so that nothing but
// a bounded regular file is ever read: a FIFO or a device would block the
// reader, a /proc file would show the reader's own state, and a large file
// would cost its memory and time.
#pragma once

#include <optional>
#include <string>

namespace pacml::plugin {

// Status codes besides errno values.
constexpr int kNotRegular = -1;
constexpr int kTooLarge = -2;
constexpr int kProcFile = -3;

// Regular, not under /proc, at most `max_bytes`: 0 or a status code.
int check_opened_file(int fd, long max_bytes);

// check_opened_file, then the whole file into `data`: 0, an errno value or
// a status code (kTooLarge also if it grew while being read).
int read_opened_file(int fd, long max_bytes, std::string& data);

// What a status (errno value or code) means, for a message.
std::string describe_file_status(int status, long max_bytes);

// Opens `path` with O_NONBLOCK (a FIFO cannot block) and, unless
// `follow_links` (the user's own process reading the user's path), with
// O_NOFOLLOW (a link in an admin directory is not followed), then reads it
// as read_opened_file does. nullopt if there is no such file; throws
// InputError(path, "cannot read: …") for anything else that keeps it from
// being read.
std::optional<std::string> read_regular_file(const std::string& path, long max_bytes,
                                             bool follow_links = false);

}  // namespace pacml::plugin
