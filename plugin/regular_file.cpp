#include "plugin/regular_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace pacml::plugin {

int check_opened_file(int fd, long max_bytes) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return kNotRegular;
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0 || fs.f_type == PROC_SUPER_MAGIC) return kProcFile;
  return st.st_size > max_bytes ? kTooLarge : 0;
}

int read_opened_file(int fd, long max_bytes, std::string& data) {
  if (const int status = check_opened_file(fd, max_bytes)) return status;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    data.append(buf, static_cast<size_t>(n));
    if (static_cast<long>(data.size()) > max_bytes) return kTooLarge;  // grew while reading
  }
}

std::string describe_file_status(int status, long max_bytes) {
  switch (status) {
    case kNotRegular:
      return "not a regular file";
    case kTooLarge:
      return "larger than the site's limit of " + std::to_string(max_bytes) +
             " bytes (max_graph_bytes)";
    case kProcFile:
      return "a /proc file, which pacml does not read";
    case ELOOP:
      return "a symbolic link, which pacml does not follow here";
    default:
      return std::strerror(status);
  }
}

std::optional<std::string> read_regular_file(const std::string& path, long max_bytes,
                                             bool follow_links) {
  const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW);
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0) throw InputError(path, "cannot read: " + describe_file_status(errno, max_bytes));
  std::string data;
  const int status = read_opened_file(fd, max_bytes, data);
  ::close(fd);
  if (status != 0)
    throw InputError(path, "cannot read: " + describe_file_status(status, max_bytes));
  return data;
}

}  // namespace pacml::plugin
