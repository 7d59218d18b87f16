#include "plugin/decision_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/slurm/log_text.h"
#include "core/util/error.h"

namespace pacml::plugin {

nlohmann::json escape_invalid_utf8(const nlohmann::json& record) {
  if (record.is_string()) return slurm::escape_invalid_utf8(record.get<std::string>());
  if (record.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const nlohmann::json& item : record) out.push_back(escape_invalid_utf8(item));
    return out;
  }
  if (record.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : record.items())
      out[slurm::escape_invalid_utf8(key)] = escape_invalid_utf8(value);
    return out;
  }
  return record;
}

DecisionLog::~DecisionLog() {
  close_file();
}

void DecisionLog::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void DecisionLog::open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (path == path_ && (path.empty() || fd_ >= 0)) return;
  close_file();
  path_ = path;
  if (path.empty()) return;
  // O_NOFOLLOW: a link planted where the log goes cannot redirect
  // slurmctld's writes; O_NONBLOCK: a FIFO there cannot hang it.
  const int fd = ::open(path.c_str(),
                        O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0640);
  std::string reason;
  struct stat st;
  if (fd < 0)
    reason = errno == ELOOP   ? "it is a symbolic link, which pacml does not follow"
             : errno == ENXIO ? "not a regular file (a FIFO)"
                              : std::strerror(errno);
  else if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    reason = "not a regular file";
  if (!reason.empty()) {
    if (fd >= 0) ::close(fd);
    path_.clear();
    throw InputError(path, "cannot open the decision log: " + reason);
  }
  fd_ = fd;
}

// A decision whose job never appeared in slurmctld's job table: Slurm refused
// the job after pacml decided (e.g. a partition Slurm does not have) or it
// was never meant to exist (sbatch --test-only runs job_submit too).
void DecisionLog::mark_not_created(nlohmann::json& record) {
  record["outcome"] = "not_created";
  record["reason"] =
      "Slurm created no job for this decision (refused after pacml decided, or --test-only)";
}

void DecisionLog::write_text(const std::string& line) {
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk: the line is lost, later ones are tried
    p += n, left -= static_cast<size_t>(n);
  }
  ++written_;
}

// Strings were escaped when the record was added; should dump() still fail,
// the record is replaced by one that says so rather than kept for ever.
void DecisionLog::write_line(const nlohmann::json& record) {
  if (fd_ < 0) return;
  std::string line;
  try {
    line = record.dump() + '\n';
  } catch (const std::exception& e) {
    const bool named = record.is_object() && record.contains("decision");
    nlohmann::json failed = {{"decision", named ? record["decision"] : nlohmann::json(nullptr)},
                             {"outcome", "unwritable"},
                             {"reason", slurm::escape_invalid_utf8(e.what())}};
    line = failed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  }
  write_text(line);
}

void DecisionLog::add(const std::string& decision_id, nlohmann::json record, bool wait_for_job_id,
                      double now, double wait_seconds) {
  nlohmann::json safe = escape_invalid_utf8(record);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!wait_for_job_id) {
    write_line(safe);
    return;
  }
  held_[decision_id] = Held{std::move(safe), now + wait_seconds, false};
}

bool DecisionLog::resolve(const std::string& decision_id, std::uint32_t job_id, uid_t owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = held_.find(decision_id);
  if (it == held_.end() || it->second.resolved) return false;
  const nlohmann::json& user = it->second.record["user_id"];
  if (!user.is_number_unsigned() || user.get<std::uint64_t>() != owner) return false;
  it->second.record["job_id"] = job_id;
  it->second.resolved = true;
  return true;
}

int DecisionLog::flush(double now, bool everything) {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (auto it = held_.begin(); it != held_.end();) {
    if (everything || it->second.resolved || now >= it->second.expires) {
      if (!it->second.resolved && !everything) mark_not_created(it->second.record);
      write_line(it->second.record);
      ++n;
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  return n;
}

std::vector<std::string> DecisionLog::unresolved() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [id, held] : held_)
    if (!held.resolved) out.push_back(id);
  return out;
}

}  // namespace pacml::plugin
