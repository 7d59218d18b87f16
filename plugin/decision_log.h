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
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace pacml::plugin {

class DecisionLog {
 public:
  // Opens (appends to) `path`; "" disables the log. Throws InputError.
  void open(const std::string& path);
  const std::string& path() const { return path_; }

  // Adds a record; if `wait_for_job_id`, it is held until resolve() or until
  // `wait_seconds` after `now`.
  void add(const std::string& decision_id, nlohmann::json record, bool wait_for_job_id, double now,
           double wait_seconds);
  // Fills in the Slurm job id of a held record (no-op if unknown).
  void resolve(const std::string& decision_id, std::uint32_t job_id);
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
  static void mark_not_created(nlohmann::json& record);

  mutable std::mutex mutex_;
  std::string path_;
  std::ofstream out_;
  std::map<std::string, Held> held_;
  long written_ = 0;
};

}  // namespace pacml::plugin
