// Trace readers: ElasticFlow CSV, SWF, sacct --parsable2 or --json, squeue --json.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/slurm/slurm_json.h"
#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "sim/trace/trace.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

std::vector<std::string> split_blanks(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A bad line: thrown (strict) or counted (skip_bad).
struct BadLine {
  std::string reason, message;
};

double non_negative(const std::string& text, const std::string& what) {
  const std::string t(trim(text));
  double v;
  try {
    v = parse_finite_double(t, "", what);
  } catch (const InputError&) {
    throw BadLine{"malformed " + what, what + " '" + t + "' is not a number"};
  }
  if (v < 0) throw BadLine{"negative " + what, what + " is negative (" + t + ")"};
  return v;
}

long non_negative_integer(const std::string& text, const std::string& what) {
  const double v = non_negative(text, what);
  if (!(v < 9.2e18) || v != static_cast<double>(static_cast<long>(v)))
    throw BadLine{"malformed " + what,
                  what + " '" + std::string(trim(text)) + "' is not an integer"};
  return static_cast<long>(v);
}

template <typename LineFn>
void for_each_line(std::istream& in, const std::string& source, const TraceReadOptions& options,
                   TraceReport& report, LineFn fn) {
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    try {
      fn(line, number);
    } catch (const BadLine& bad) {
      if (!options.skip_bad) throw InputError(file_line(source, number), bad.message);
      report.skip(bad.reason);
    }
  }
}

// Maps the column names of a header line to their positions. Every name must
// be one the reader knows (`hint` tells the user what to fix); no repeats;
// every column in `required` must be present.
std::map<std::string, int> read_header(const std::vector<std::string>& names,
                                       const std::vector<std::string>& known,
                                       const std::vector<const char*>& required,
                                       const std::string& where, const std::string& hint) {
  std::map<std::string, int> col;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name(trim(names[i]));
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw InputError(where, "unknown column '" + name + "' (" + hint + ")");
    if (col.count(name)) throw InputError(where, "column '" + name + "' appears twice");
    col[name] = static_cast<int>(i);
  }
  for (const char* need : required)
    if (!col.count(need)) throw InputError(where, std::string("missing column '") + need + "'");
  return col;
}

// ---- ElasticFlow ----------------------------------------------------------

std::vector<TraceRecord> read_elasticflow(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report) {
  static const std::vector<std::string> known = {"job_id",     "submission_time", "num_iteration",
                                                 "model_name", "deadline",        "batch_size",
                                                 "num_gpu",    "duration"};
  std::vector<TraceRecord> out;
  std::vector<std::string> header;
  std::map<std::string, int> col;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    if (trim(line).empty()) return;
    const std::string where = file_line(source, number);
    if (header.empty()) {
      header = split_fields(line, ',');
      col = read_header(header, known, {"submission_time"}, where,
                        "ElasticFlow columns: " + join(known));
      return;
    }
    ++report.lines;
    const std::vector<std::string> f = split_fields(line, ',');
    if (f.size() != header.size())
      throw BadLine{"wrong field count", "expected " + std::to_string(header.size()) +
                                             " comma-separated fields, got " +
                                             std::to_string(f.size())};
    auto get = [&](const char* name) -> const std::string* {
      auto it = col.find(name);
      return it == col.end() ? nullptr : &f[it->second];
    };
    TraceRecord r;
    r.source = where;
    r.id = get("job_id") ? std::string(trim(*get("job_id"))) : std::to_string(number);
    r.submit = non_negative(*get("submission_time"), "submission_time");
    if (auto* v = get("num_iteration")) r.iterations = non_negative_integer(*v, "num_iteration");
    if (auto* v = get("model_name")) r.model = std::string(trim(*v));
    if (auto* v = get("deadline")) {
      r.deadline = non_negative(*v, "deadline");
      if (r.deadline <= r.submit)
        throw BadLine{"deadline before submission",
                      "deadline " + std::string(trim(*v)) + " is not after the submission time"};
    }
    if (auto* v = get("num_gpu")) {
      const long g = non_negative_integer(*v, "num_gpu");
      if (g < 1) throw BadLine{"no workers", "num_gpu must be at least 1"};
      r.gpus = static_cast<int>(std::min<long>(g, 1 << 20));
    }
    if (auto* v = get("duration")) r.duration = non_negative(*v, "duration");
    if (auto* v = get("batch_size")) {
      const long b = non_negative_integer(*v, "batch_size");
      if (b < 1) throw BadLine{"no batch", "batch_size must be at least 1"};
      r.batch = static_cast<int>(std::min<long>(b, 1 << 24));
    }
    if (r.iterations == 0) throw BadLine{"zero iterations", "num_iteration is 0"};
    out.push_back(std::move(r));
  });
  if (header.empty()) throw InputError(source, "empty trace (no header line)");
  return out;
}

// ---- SWF --------------------------------------------------------------------

std::vector<TraceRecord> read_swf(std::istream& in, const std::string& source,
                                  const TraceReadOptions& options, TraceReport& report) {
  std::vector<TraceRecord> out;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    const std::string t(trim(line));
    if (t.empty() || t[0] == ';') return;
    ++report.lines;
    const std::vector<std::string> f = split_blanks(t);
    if (f.size() != 18)
      throw BadLine{"wrong field count",
                    "an SWF line has 18 fields, this one has " + std::to_string(f.size())};
    std::array<double, 18> v{};
    for (int i = 0; i < 18; ++i) {
      try {
        v[i] = parse_finite_double(f[i], "", "field");
      } catch (const InputError&) {
        throw BadLine{"malformed field",
                      "SWF field " + std::to_string(i + 1) + " '" + f[i] + "' is not a number"};
      }
    }
    TraceRecord r;
    r.source = file_line(source, number);
    r.id = f[0];
    if (v[1] < 0) throw BadLine{"negative submit time", "submit time (field 2) is negative"};
    r.submit = v[1];
    if (v[3] >= 0) r.duration = v[3];
    const double procs = v[4] > 0 ? v[4] : v[7];
    if (!(procs > 0))
      throw BadLine{"no processor count",
                    "neither allocated (field 5) nor requested processors (field 8) is positive"};
    r.gpus = static_cast<int>(std::clamp(std::ceil(procs), 1.0, 1e6));
    if (v[8] > 0) r.time_limit = v[8];
    if (v[13] >= 0) r.executable = f[13];
    out.push_back(std::move(r));
  });
  return out;
}

// ---- Slurm ----------------------------------------------------------------

// Every column `sacct --helpformat` lists (Slurm 22.05): any of them may be in
// a trace; pacml reads the ones named in sim/README.md and ignores the rest.
const std::vector<std::string>& sacct_columns() {
  static const std::vector<std::string> columns = split_blanks(
      "Account AdminComment AllocCPUS AllocNodes AllocTRES AssocID AveCPU AveCPUFreq "
      "AveDiskRead AveDiskWrite AvePages AveRSS AveVMSize BlockID Cluster Comment Constraints "
      "ConsumedEnergy ConsumedEnergyRaw Container CPUTime CPUTimeRAW DBIndex DerivedExitCode "
      "Elapsed ElapsedRaw Eligible End ExitCode Flags GID Group JobID JobIDRaw JobName Layout "
      "MaxDiskRead MaxDiskReadNode MaxDiskReadTask MaxDiskWrite MaxDiskWriteNode "
      "MaxDiskWriteTask MaxPages MaxPagesNode MaxPagesTask MaxRSS MaxRSSNode MaxRSSTask "
      "MaxVMSize MaxVMSizeNode MaxVMSizeTask McsLabel MinCPU MinCPUNode MinCPUTask NCPUS NNodes "
      "NodeList NTasks Partition Priority QOS QOSRAW Reason ReqCPUFreq ReqCPUFreqGov "
      "ReqCPUFreqMax ReqCPUFreqMin ReqCPUS ReqMem ReqNodes ReqTRES Reservation ReservationId "
      "Reserved ResvCPU ResvCPURAW Start State Submit SubmitLine Suspended SystemCPU "
      "SystemComment Timelimit TimelimitRaw TotalCPU TRESUsageInAve TRESUsageInMax "
      "TRESUsageInMaxNode TRESUsageInMaxTask TRESUsageInMin TRESUsageInMinNode "
      "TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOutMax TRESUsageOutMaxNode "
      "TRESUsageOutMaxTask TRESUsageOutMin TRESUsageOutMinNode TRESUsageOutMinTask "
      "TRESUsageOutTot UID User UserCPU WCKey WCKeyID WorkDir");
  return columns;
}

constexpr const char* kSacctFormat =
    "sacct --parsable2 --format=JobID,Submit,Start,End,NNodes,AllocTRES,Timelimit,State,Comment";

bool is_slurm_non_time(const std::string& t) {
  return t.empty() || t == "Unknown" || t == "None" || t == "N/A" || t == "0";
}

std::vector<TraceRecord> read_sacct(std::istream& in, const std::string& source,
                                    const TraceReadOptions& options, TraceReport& report) {
  static const std::vector<std::string>& known = sacct_columns();
  std::vector<TraceRecord> out;
  std::vector<std::string> header;
  std::map<std::string, int> col;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    if (trim(line).empty()) return;
    const std::string where = file_line(source, number);
    if (header.empty()) {
      header = split_fields(line, '|');
      col = read_header(header, known, {}, where,
                        "not a column sacct prints; was the output made with --parsable2 and a "
                        "header?");
      for (const char* need : {"JobID", "Submit"})
        if (!col.count(need))
          throw InputError(where, std::string("missing column '") + need +
                                      "': a replay needs each job's id and submit time "
                                      "(sacct's default columns have no times); use " +
                                      kSacctFormat);
      return;
    }
    ++report.lines;
    const std::vector<std::string> f = split_fields(line, '|');
    if (f.size() != header.size())
      throw BadLine{"wrong field count", "expected " + std::to_string(header.size()) +
                                             " '|'-separated fields, got " +
                                             std::to_string(f.size())};
    auto get = [&](const char* name) -> std::string {
      auto it = col.find(name);
      return it == col.end() ? std::string() : std::string(trim(f[it->second]));
    };
    TraceRecord r;
    r.source = where;
    r.id = get("JobID");
    if (r.id.find('.') != std::string::npos) {
      report.skip("job step (not a job)");  // 46.batch, 46.0: steps of a job already counted
      return;
    }
    try {
      r.submit = slurm::parse_timestamp(get("Submit"), where);
    } catch (const InputError& e) {
      throw BadLine{"malformed Submit", std::string("Submit: ") + e.what()};
    }
    const std::string start = get("Start"), end = get("End");
    if (!is_slurm_non_time(start) && !is_slurm_non_time(end)) {
      double s, e;
      try {
        s = slurm::parse_timestamp(start, where);
        e = slurm::parse_timestamp(end, where);
      } catch (const InputError& err) {
        throw BadLine{"malformed Start/End", err.what()};
      }
      if (e < s) throw BadLine{"negative run time", "End is before Start"};
      r.duration = e - s;
    }
    for (const char* count : {"NNodes", "AllocNodes", "ReqNodes"}) {
      if (!col.count(count)) continue;
      const long nodes = non_negative_integer(get(count), count);
      if (nodes < 1) throw BadLine{"no workers", std::string(count) + " must be at least 1"};
      r.gpus = static_cast<int>(std::min(nodes, 1L << 20));
      break;
    }
    for (const char* tres : {"AllocTRES", "ReqTRES"}) {
      const std::string t = get(tres);
      const size_t at = t.find("gres/gpu=");
      if (at != std::string::npos) {
        const size_t b = at + 9, e = t.find(',', b);
        r.gpus = static_cast<int>(
            std::clamp(non_negative_integer(t.substr(b, e - b), "GPU count"), 1L, 1L << 20));
        break;
      }
    }
    if (col.count("Timelimit")) {
      try {
        r.time_limit = slurm::parse_time_limit_seconds(get("Timelimit"), where).value_or(kUnknown);
      } catch (const InputError& e) {
        throw BadLine{"malformed Timelimit", e.what()};
      }
    }
    try {
      apply_pacml_comment(get("Comment"), r, where);
    } catch (const InputError& e) {
      throw BadLine{"malformed pacml comment", e.what()};
    }
    out.push_back(std::move(r));
  });
  if (header.empty()) throw InputError(source, "empty sacct output (no header line)");
  return out;
}

// One job of squeue --json (also one line of job_submit/pacml's decision log,
// which has the same shape). Throws BadLine for a job that cannot be used.
TraceRecord squeue_job_record(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw BadLine{"malformed job", "a job entry is not an object"};
  TraceRecord r;
  r.source = where;
  double v;
  if (!j.contains("job_id") || !slurm_json_number(j["job_id"], v))
    throw BadLine{"missing job_id", "no job_id"};
  if (!(std::fabs(v) < 9e18)) throw BadLine{"malformed job_id", "job_id is out of range"};
  r.id = std::to_string(static_cast<long>(v));
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

std::vector<TraceRecord> read_squeue_json(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report) {
  return read_json_jobs(in, source, "squeue --json", squeue_job_record, options, report);
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
  if (!j.is_object()) throw BadLine{"malformed job", "a job entry is not an object"};
  TraceRecord r;
  r.source = where;
  double v;
  if (!j.contains("job_id") || !slurm_json_number(j["job_id"], v))
    throw BadLine{"missing job_id", "no job_id"};
  if (!(std::fabs(v) < 9e18)) throw BadLine{"malformed job_id", "job_id is out of range"};
  r.id = std::to_string(static_cast<long>(v));
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

std::vector<TraceRecord> read_sacct_json(std::istream& in, const std::string& source,
                                         const TraceReadOptions& options, TraceReport& report) {
  return read_json_jobs(in, source, "sacct --json", sacct_json_job_record, options, report);
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

}  // namespace

TraceFormat parse_trace_format(const std::string& text, const std::string& where) {
  if (text == "elasticflow") return TraceFormat::kElasticFlow;
  if (text == "swf") return TraceFormat::kSwf;
  if (text == "sacct") return TraceFormat::kSacct;
  if (text == "squeue-json" || text == "squeue") return TraceFormat::kSqueueJson;
  if (text == "pacml-log") return TraceFormat::kPacmlLog;
  throw InputError(where, "unknown trace format '" + text +
                              "' (use elasticflow, swf, sacct, squeue-json or pacml-log)");
}

const char* trace_format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::kElasticFlow:
      return "elasticflow";
    case TraceFormat::kSwf:
      return "swf";
    case TraceFormat::kSacct:
      return "sacct";
    case TraceFormat::kSqueueJson:
      return "squeue-json";
    case TraceFormat::kPacmlLog:
      return "pacml-log";
  }
  return "?";
}

void apply_pacml_comment(const std::string& comment, TraceRecord& record,
                         const std::string& where) {
  slurm::RequestFields f;
  if (!slurm::parse_comment(comment, f, where)) return;
  if (f.graph) record.model = *f.graph;
  if (f.model) record.model = *f.model;
  if (f.beta) record.beta = *f.beta;
  if (f.steps) record.steps = *f.steps;
  if (f.deadline)
    record.deadline =
        record.submit + slurm::parse_deadline_seconds(*f.deadline, record.submit, where);
}

std::vector<TraceRecord> read_trace(std::istream& in, const std::string& source, TraceFormat format,
                                    const TraceReadOptions& options, TraceReport& report) {
  report.path = source;
  std::vector<TraceRecord> out;
  switch (format) {
    case TraceFormat::kElasticFlow:
      out = read_elasticflow(in, source, options, report);
      break;
    case TraceFormat::kSwf:
      out = read_swf(in, source, options, report);
      break;
    case TraceFormat::kSacct:
      // sacct --json starts with '{', sacct --parsable2 with its header
      out = in.peek() == '{' ? read_sacct_json(in, source, options, report)
                             : read_sacct(in, source, options, report);
      break;
    case TraceFormat::kSqueueJson:
      out = read_squeue_json(in, source, options, report);
      break;
    case TraceFormat::kPacmlLog:
      out = read_pacml_log(in, source, options, report);
      break;
  }
  report.records = static_cast<long>(out.size());
  return out;
}

std::vector<TraceRecord> read_trace_file(const std::string& path, TraceFormat format,
                                         const TraceReadOptions& options, TraceReport& report) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw InputError(path, "cannot read the trace file (missing or unreadable)");
  if (!gz) return read_trace(probe, path, format, options, report);
  probe.close();
  // Decompress with gzip(1) into memory; the quoting guards odd characters in paths.
  const std::string quoted = shell_quote(path);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen(("gzip -dc -- " + quoted + " 2>/dev/null").c_str(), "r"), pclose);
  if (!pipe) throw InputError(path, "cannot run gzip to decompress the trace");
  std::string data;
  std::array<char, 65536> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0)
    data.append(buffer.data(), n);
  const int status = pclose(pipe.release());
  if (status != 0) throw InputError(path, "gzip could not decompress the trace (corrupt .gz?)");
  std::istringstream in(data);
  return read_trace(in, path, format, options, report);
}

}  // namespace pacml::sim
