// `sacct --json` as the history's accounting (history_records.h). One
// reader for the shapes Slurm's data_parser has printed:
//  * v0.0.38 (Slurm 22.05): state.current a string, times plain integers;
//  * v0.0.39+ (23.02 on, 24.11's v0.0.40–42): state.current a list of flags
//    (the base state first), and numbers that may be {"set", "infinite",
//    "number"} objects.
// Only jobs[].job_id, state.current, time.elapsed, time.start and
// comment.job (a job's own report, job_report.h) are read;
// steps are nested inside their job (not rows of their own, as with -P).
// Every error names the file and the JSON path (jobs[3].time.elapsed).
#include <nlohmann/json.hpp>

#include "core/slurm/slurm_json.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "sim/history/history_records.h"
#include "sim/history/job_report.h"

namespace pacml::sim {
namespace {

using nlohmann::json;

const json& member(const json& object, const char* key, const std::string& where,
                   const std::string& path) {
  if (!object.is_object() || !object.contains(key))
    throw InputError(where, path + "." + key + " is missing");
  return object[key];
}

std::string job_id(const json& job, const std::string& where, const std::string& path) {
  const json& id = member(job, "job_id", where, path);
  double v = 0;
  if (!slurm_json_number(id, v) || !(v >= 1 && v < 4294967296.0) || v != static_cast<long>(v))
    throw InputError(where, path + ".job_id must be a positive integer, got " + id.dump());
  return std::to_string(static_cast<long>(v));
}

// "COMPLETED" (22.05) or ["COMPLETED"] / ["CANCELLED", …] (23.02 on): the
// base state, which data_parser lists first.
std::string state(const json& job, const std::string& where, const std::string& path) {
  // Named, not temporaries: g++ 14 warns of a dangling reference when a
  // reference result is bound while a temporary argument dies.
  const json& state_object = member(job, "state", where, path);
  const std::string state_path = path + ".state";
  const json& current = member(state_object, "current", where, state_path);
  const json& first = current.is_array() && !current.empty() ? current[0] : current;
  if (!first.is_string() || first.get<std::string>().empty())
    throw InputError(where, path + ".state.current must be a state name or a list of them, got " +
                                current.dump());
  return first.get<std::string>();
}

AccountingEntry job_entry(const json& job, const std::string& where, const std::string& path) {
  if (!job.is_object()) throw InputError(where, path + " must be an object (one job)");
  AccountingEntry a;
  a.source = where + ": " + path;
  a.job_id = job_id(job, where, path);
  a.state = state(job, where, path);
  const json& time = member(job, "time", where, path);
  const std::string time_path = path + ".time";
  const json& elapsed = member(time, "elapsed", where, time_path);
  double v = 0;
  if (!slurm_json_number(elapsed, v) || !(v >= 0 && v < 1e12))
    throw InputError(where,
                     path + ".time.elapsed must be seconds (a number >= 0), got " + elapsed.dump());
  a.elapsed = v;
  // 0, unset or NO_VAL: not started (a job cancelled while pending)
  if (time.contains("start") && slurm_json_time(time["start"], v)) a.start = v;
  return a;
}

// comment.job: the user's Comment (v0.0.38 on); "" when absent (accounting
// without AccountingStoreFlags=job_comment) or not text.
std::string job_comment(const json& job) {
  if (!job.contains("comment") || !job["comment"].is_object()) return "";
  const json& comment = job["comment"];
  return comment.contains("job") && comment["job"].is_string() ? comment["job"].get<std::string>()
                                                               : "";
}

}  // namespace

std::vector<AccountingEntry> read_sacct_json_accounting(std::istream& in, const std::string& source,
                                                        HistoryReport& report) {
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw InputError(source, std::string("not sacct --json output: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
    throw InputError(source, "expected sacct --json output: an object with a \"jobs\" array");
  std::vector<AccountingEntry> out;
  const json& jobs = doc["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    ++report.lines;
    try {
      out.push_back(job_entry(jobs[i], source, "jobs[" + std::to_string(i) + "]"));
      take_job_report(job_comment(jobs[i]), out.back(), report);
    } catch (const json::exception& e) {  // a type nlohmann refused: still named
      throw InputError(source, "jobs[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return out;
}

std::vector<AccountingEntry> read_any_sacct_accounting(std::istream& in, const std::string& source,
                                                       HistoryReport& report) {
  in >> std::ws;
  if (in.peek() == '{') return read_sacct_json_accounting(in, source, report);
  return read_sacct_accounting(in, source, report);
}

}  // namespace pacml::sim
