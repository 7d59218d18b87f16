// Slurm's JSON: squeue --json and sacct --json (a "jobs" array), and
// job_submit/pacml's decision log (one squeue-shaped job per line).
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/slurm/slurm_json.h"
#include "core/util/numbers.h"
#include "sim/trace/format_readers.h"
#include "sim/trace/trace_lines.h"

namespace pacml::sim::trace_reading {
namespace {

// A job entry of either JSON's "jobs" array, as a record with its source and
// job_id (the one key both shapes share). Throws BadLine.
TraceRecord json_job_with_id(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw BadLine{"malformed job", "a job entry is not an object"};
  TraceRecord r;
  r.source = where;
  double v;
  if (!j.contains("job_id") || !slurm_json_number(j["job_id"], v))
    throw BadLine{"missing job_id", "no job_id"};
  if (!(std::fabs(v) < 9e18)) throw BadLine{"malformed job_id", "job_id is out of range"};
  r.id = std::to_string(static_cast<long>(v));
  return r;
}

// One job of squeue --json (also one line of job_submit/pacml's decision log,
// which has the same shape). Throws BadLine for a job that cannot be used.
TraceRecord squeue_job_record(const nlohmann::json& j, const std::string& where) {
  TraceRecord r = json_job_with_id(j, where);
  double v;
  if (!j.contains("submit_time") || !slurm_json_number(j["submit_time"], v))
    throw BadLine{"missing submit_time", "no submit_time"};
  if (v < 0) throw BadLine{"negative submit time", "submit_time is negative"};
  r.submit = v;
  double start, end;
  if (j.contains("start_time") && j.contains("end_time") &&
      slurm_json_time(j["start_time"], start) && slurm_json_time(j["end_time"], end)) {
    if (end < start) throw BadLine{"negative run time", "end_time is before start_time"};
    r.duration = end - start;
  }
  if (j.contains("node_count") && slurm_json_number(j["node_count"], v) && v >= 1)
    r.gpus = static_cast<int>(std::min(v, 1e6));
  for (const char* tres : {"tres_alloc_str", "tres_req_str", "tres_per_job", "tres_per_node"}) {
    if (!j.contains(tres) || !j[tres].is_string()) continue;
    const std::string t = j[tres].get<std::string>();
    size_t at = t.find("gres/gpu=");
    size_t skip = 9;
    if (at == std::string::npos) at = t.find("gpu:"), skip = 4;
    if (at == std::string::npos) continue;
    const size_t b = at + skip, e = t.find_first_not_of("0123456789", b);
    const std::string digits = t.substr(b, e - b);
    if (!digits.empty()) {
      long g = digits.size() > 7 ? 1L << 20 : std::stol(digits);
      if (std::string(tres) == "tres_per_node") g *= r.gpus;
      r.gpus = static_cast<int>(std::clamp(g, 1L, 1L << 20));
      break;
    }
  }
  if (j.contains("time_limit") && slurm_json_number(j["time_limit"], v) && v > 0)
    r.time_limit = v * 60;
  if (j.contains("comment") && j["comment"].is_string()) {
    try {
      apply_pacml_comment(j["comment"].get<std::string>(), r, where);
    } catch (const InputError& e) {
      throw BadLine{"malformed pacml comment", e.what()};
    }
  }
  return r;
}

// The "jobs" array of squeue --json or sacct --json output (`what` names it
// in errors), each job made a record by `record`, a bad one named by its
// index and skipped only with --skip-bad.
template <typename MakeRecord>
std::vector<TraceRecord> read_json_jobs(std::istream& in, const std::string& source,
                                        const std::string& what, MakeRecord record,
                                        const TraceReadOptions& options, TraceReport& report) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source, std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
    throw InputError(source, "expected " + what + " output: an object with a \"jobs\" array");
  std::vector<TraceRecord> out;
  const auto& jobs = doc["jobs"];
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string where = source + ": jobs[" + std::to_string(i) + "]";
    ++report.lines;
    try {
      out.push_back(record(jobs[i], where));
    } catch (const BadLine& bad) {
      if (!options.skip_bad) throw InputError(where, bad.message);
      report.skip(bad.reason);
    } catch (const nlohmann::json::exception& e) {
      if (!options.skip_bad) throw InputError(where, e.what());
      report.skip("malformed job");
    }
  }
  return out;
}

// sacct --json's TRES list ([{"type":"gres","name":"gpu","count":4}, ...]):
// the GPU count, or 0 when the list names none.
long sacct_json_gpus(const nlohmann::json& list) {
  if (!list.is_array()) return 0;
  double v;
  for (const nlohmann::json& t : list)
    if (t.is_object() && t.value("type", "") == "gres" && t.value("name", "") == "gpu" &&
        t.contains("count") && slurm_json_number(t["count"], v) && v >= 1)
      return static_cast<long>(std::min(v, 1e6));
  return 0;
}

// One job of sacct --json (Slurm 22.05's v0.0.38 and later: times under
// "time", the GPUs in "tres", the user's comment in "comment.job"; steps are
// inside their job, so every entry is a job). Throws BadLine like the others.
TraceRecord sacct_json_job_record(const nlohmann::json& j, const std::string& where) {
  TraceRecord r = json_job_with_id(j, where);
  double v;
  const nlohmann::json& time = j.contains("time") ? j["time"] : nlohmann::json();
  if (!time.is_object() || !time.contains("submission") ||
      !slurm_json_number(time["submission"], v))
    throw BadLine{"missing submission time", "no time.submission"};
  if (v < 0) throw BadLine{"negative submit time", "time.submission is negative"};
  r.submit = v;
  double start, end;
  if (time.contains("start") && time.contains("end") && slurm_json_time(time["start"], start) &&
      slurm_json_time(time["end"], end)) {
    if (end < start) throw BadLine{"negative run time", "time.end is before time.start"};
    r.duration = end - start;
  }
  if (j.contains("allocation_nodes") && slurm_json_number(j["allocation_nodes"], v) && v >= 1)
    r.gpus = static_cast<int>(std::min(v, 1e6));
  if (j.contains("tres") && j["tres"].is_object())
    for (const char* which : {"allocated", "requested"})
      if (const long g = j["tres"].contains(which) ? sacct_json_gpus(j["tres"][which]) : 0) {
        r.gpus = static_cast<int>(g);
        break;
      }
  // minutes; Slurm's INFINITE and NO_VAL (0xffffffff, 0xfffffffe) are no limit
  if (time.contains("limit") && slurm_json_number(time["limit"], v) && v > 0 && v < 4294967294.0)
    r.time_limit = v * 60;
  const nlohmann::json* comment = j.contains("comment") ? &j["comment"] : nullptr;
  if (comment && comment->is_object())
    comment = comment->contains("job") ? &(*comment)["job"] : nullptr;
  if (comment && comment->is_string()) {
    try {
      apply_pacml_comment(comment->get<std::string>(), r, where);
    } catch (const InputError& e) {
      throw BadLine{"malformed pacml comment", e.what()};
    }
  }
  return r;
}

// One decision of the log: squeue-shaped, but the request is read from its
// own fields rather than its comment (a graph path may hold blanks, and logs
// written before comments were percent-encoded kept them raw).
TraceRecord pacml_log_record(nlohmann::json job, const std::string& where) {
  const bool structured = job.contains("model") && job["model"].is_string();
  if (structured) job.erase("comment");
  TraceRecord r = squeue_job_record(job, where);
  if (!structured) return r;
  r.model = job.contains("graph") && job["graph"].is_string() ? job["graph"].get<std::string>()
                                                              : job["model"].get<std::string>();
  double v;
  if (job.contains("beta") && slurm_json_number(job["beta"], v)) {
    if (!(v > 0 && v <= 1)) throw BadLine{"malformed beta", "beta must be in (0, 1]"};
    r.beta = v;
  }
  if (job.contains("steps") && slurm_json_number(job["steps"], v)) {
    if (!(v >= 1 && v <= 1e9)) throw BadLine{"malformed steps", "steps must be in [1, 1e9]"};
    r.steps = static_cast<long>(v);
  }
  return r;
}

}  // namespace

std::vector<TraceRecord> read_squeue_json(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report) {
  return read_json_jobs(in, source, "squeue --json", squeue_job_record, options, report);
}

std::vector<TraceRecord> read_sacct_json(std::istream& in, const std::string& source,
                                         const TraceReadOptions& options, TraceReport& report) {
  return read_json_jobs(in, source, "sacct --json", sacct_json_job_record, options, report);
}

// job_submit/pacml's JSON-lines decision log: one squeue-shaped job per line.
// Decisions without a Slurm job id (rejected jobs, ids not yet known) get
// ids from 1000000000 up, so every decision is an arrival of the replay.
std::vector<TraceRecord> read_pacml_log(std::istream& in, const std::string& source,
                                        const TraceReadOptions& options, TraceReport& report) {
  std::vector<TraceRecord> out;
  long synthetic_id = 1000000000;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    if (trim(line).empty()) return;
    ++report.lines;
    nlohmann::json job;
    try {
      job = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw BadLine{"malformed line", "not a JSON object (a decision log has one per line)"};
    }
    if (!job.is_object()) throw BadLine{"malformed line", "not a JSON object"};
    if (job.contains("outcome") && job["outcome"] == "not_created") {
      report.skip("not created by Slurm (--test-only, or refused after the decision)");
      return;
    }
    if (!job.contains("job_id") || job["job_id"].is_null()) job["job_id"] = synthetic_id++;
    try {
      out.push_back(pacml_log_record(job, file_line(source, number)));
    } catch (const nlohmann::json::exception& e) {
      throw BadLine{"malformed job", e.what()};
    }
  });
  return out;
}

}  // namespace pacml::sim::trace_reading
