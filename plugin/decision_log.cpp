#include "plugin/decision_log.h"

#include <cerrno>
#include <cstring>

#include "core/util/error.h"

namespace pacml::plugin {

void DecisionLog::open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (path == path_ && (path.empty() || out_.is_open())) return;
  if (out_.is_open()) out_.close();
  path_ = path;
  if (path.empty()) return;
  out_.open(path, std::ios::app);
  if (!out_) {
    const std::string reason = std::strerror(errno);
    path_.clear();
    throw InputError(path, "cannot open the decision log: " + reason);
  }
}

// A decision whose job never appeared in slurmctld's job table: Slurm refused
// the job after pacml decided (e.g. a partition Slurm does not have) or it
// was never meant to exist (sbatch --test-only runs job_submit too).
void DecisionLog::mark_not_created(nlohmann::json& record) {
  record["outcome"] = "not_created";
  record["reason"] =
      "Slurm created no job for this decision (refused after pacml decided, or --test-only)";
}

void DecisionLog::write_line(const nlohmann::json& record) {
  if (!out_.is_open()) return;
  out_ << record.dump() << '\n';
  out_.flush();
  ++written_;
}

void DecisionLog::add(const std::string& decision_id, nlohmann::json record, bool wait_for_job_id,
                      double now, double wait_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!wait_for_job_id) {
    write_line(record);
    return;
  }
  held_[decision_id] = Held{std::move(record), now + wait_seconds, false};
}

void DecisionLog::resolve(const std::string& decision_id, std::uint32_t job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = held_.find(decision_id);
  if (it == held_.end()) return;
  it->second.record["job_id"] = job_id;
  it->second.resolved = true;
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
