// The JSON-lines decision log: one object per decision.
//
// Each line is shaped like one job of `squeue --json`'s "jobs" array
// (job_id, submit_time, node_count, time_limit in minutes, comment
// "pacml:model=…,beta=…,steps=…"), so that wrapping the lines as
// {"jobs": [...]} gives a trace `pacml replay --format squeue-json` reads
// (contrib/slurm/pacml-log-to-trace does that). The other fields record the
// decision: inputs, action, placement, predicted JCT and latency.
//
// slurmctld assigns the job id only after job_submit returns, so accepted
// decisions wait (at most `wait_seconds`) until resolve() names their job id;
// rejected ones have no job and are written at once with job_id null. A held
// decision whose job never appears is written with outcome "not_created".
//
// Every string a record holds is written with invalid UTF-8 escaped (job
// names are the user's bytes); a record that still cannot be written is
// replaced by a line saying so, never kept: it must not stop later records.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace pacml::plugin {

class DecisionLog {
 public:
  DecisionLog() = default;
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;
  ~DecisionLog();

  // Opens (appends to) `path`, creating it 0640 (decisions name users' jobs
  // and files); a symbolic link is refused (O_NOFOLLOW) and so is anything
  // but a regular file. "" disables the log. Throws InputError.
  void open(const std::string& path);
  const std::string& path() const { return path_; }

  // Adds a record; if `wait_for_job_id`, it is held until resolve() or until
  // `wait_seconds` after `now`.
  void add(const std::string& decision_id, nlohmann::json record, bool wait_for_job_id, double now,
           double wait_seconds);
  // Fills in the Slurm job id of a held record, if the job's owner is the
  // user the decision was for (the record's "user_id") and no job was named
  // before; returns whether it did.
  bool resolve(const std::string& decision_id, std::uint32_t job_id, uid_t owner);
  // Writes held records that are resolved or whose wait has expired (all if
  // `everything`). Returns how many lines were written.
  int flush(double now, bool everything = false);
  // Decision ids still waiting for a job id.
  std::vector<std::string> unresolved() const;
  long lines_written() const { return written_; }

 private:
  struct Held {
    nlohmann::json record;
    double expires = 0;
    bool resolved = false;
  };
  void write_line(const nlohmann::json& record);
  void write_text(const std::string& line);
  void close_file();
  static void mark_not_created(nlohmann::json& record);

  mutable std::mutex mutex_;
  std::string path_;
  int fd_ = -1;
  std::map<std::string, Held> held_;
  long written_ = 0;
};

// `record` with invalid UTF-8 in every string (keys and values, at any
// depth) escaped as "\xNN" (core/slurm/log_text.h).
nlohmann::json escape_invalid_utf8(const nlohmann::json& record);

}  // namespace pacml::plugin
