// sacct --parsable2 output with its header line: '|'-separated columns,
// one job (or job step, skipped) per line.
#include <algorithm>

#include "core/slurm/slurm_syntax.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "sim/trace/format_readers.h"
#include "sim/trace/trace_lines.h"

namespace pacml::sim::trace_reading {
namespace {

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

// The header's column positions; a replay needs JobID and Submit.
std::map<std::string, int> read_sacct_header(const std::vector<std::string>& names,
                                             const std::string& where) {
  std::map<std::string, int> col =
      read_header(names, sacct_columns(), {}, where,
                  "not a column sacct prints; was the output made with --parsable2 and a "
                  "header?");
  for (const char* need : {"JobID", "Submit"})
    if (!col.count(need))
      throw InputError(where, std::string("missing column '") + need +
                                  "': a replay needs each job's id and submit time "
                                  "(sacct's default columns have no times); use " +
                                  kSacctFormat);
  return col;
}

// One data line's fields, found by column name.
struct SacctLine {
  const std::vector<std::string>& fields;
  const std::map<std::string, int>& col;

  bool has(const char* name) const { return col.count(name) > 0; }
  // The trimmed field, "" for a column the header lacks.
  std::string get(const char* name) const {
    auto it = col.find(name);
    return it == col.end() ? std::string() : std::string(trim(fields[it->second]));
  }
};

// Run time from Start and End, when both are times.
void read_run_time(const SacctLine& f, const std::string& where, TraceRecord& r) {
  const std::string start = f.get("Start"), end = f.get("End");
  if (is_slurm_non_time(start) || is_slurm_non_time(end)) return;
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

// Workers: the first node count column present, then a GPU count in the
// allocated (else requested) TRES wins.
void read_workers(const SacctLine& f, TraceRecord& r) {
  for (const char* count : {"NNodes", "AllocNodes", "ReqNodes"}) {
    if (!f.has(count)) continue;
    const long nodes = non_negative_integer(f.get(count), count);
    if (nodes < 1) throw BadLine{"no workers", std::string(count) + " must be at least 1"};
    r.gpus = static_cast<int>(std::min(nodes, 1L << 20));
    break;
  }
  for (const char* tres : {"AllocTRES", "ReqTRES"}) {
    const std::string t = f.get(tres);
    const size_t at = t.find("gres/gpu=");
    if (at != std::string::npos) {
      const size_t b = at + 9, e = t.find(',', b);
      r.gpus = static_cast<int>(
          std::clamp(non_negative_integer(t.substr(b, e - b), "GPU count"), 1L, 1L << 20));
      break;
    }
  }
}

// The job of a data line whose JobID is a job's, not a step's.
TraceRecord sacct_job_record(const SacctLine& f, std::string id, const std::string& where) {
  TraceRecord r;
  r.source = where;
  r.id = std::move(id);
  try {
    r.submit = slurm::parse_timestamp(f.get("Submit"), where);
  } catch (const InputError& e) {
    throw BadLine{"malformed Submit", std::string("Submit: ") + e.what()};
  }
  read_run_time(f, where, r);
  read_workers(f, r);
  if (f.has("Timelimit")) {
    try {
      r.time_limit = slurm::parse_time_limit_seconds(f.get("Timelimit"), where).value_or(kUnknown);
    } catch (const InputError& e) {
      throw BadLine{"malformed Timelimit", e.what()};
    }
  }
  try {
    apply_pacml_comment(f.get("Comment"), r, where);
  } catch (const InputError& e) {
    throw BadLine{"malformed pacml comment", e.what()};
  }
  return r;
}

}  // namespace

std::vector<TraceRecord> read_sacct(std::istream& in, const std::string& source,
                                    const TraceReadOptions& options, TraceReport& report) {
  std::vector<TraceRecord> out;
  std::map<std::string, int> col;
  const auto on_header = [&](const std::vector<std::string>& names, const std::string& where) {
    col = read_sacct_header(names, where);
  };
  const auto on_row = [&](const std::vector<std::string>& fields, const std::string& where, long) {
    const SacctLine f{fields, col};
    std::string id = f.get("JobID");
    if (id.find('.') != std::string::npos) {
      report.skip("job step (not a job)");  // 46.batch, 46.0: steps of a job already counted
      return;
    }
    out.push_back(sacct_job_record(f, std::move(id), where));
  };
  for_each_row(in, source, options, report, '|', "'|'", "sacct output", on_header, on_row);
  return out;
}

}  // namespace pacml::sim::trace_reading
