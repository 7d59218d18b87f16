// Reading a trace: the format names, the choice of a format's reader
// (format_readers.h: ElasticFlow CSV, SWF, sacct --parsable2 or --json,
// squeue --json, pacml-log), .gz decompression, and the pacml words of a
// Slurm job comment, which the Slurm readers share.
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "sim/trace/format_readers.h"
#include "sim/trace/trace.h"
#include "sim/workload/paths.h"

namespace pacml::sim {

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
      out = trace_reading::read_elasticflow(in, source, options, report);
      break;
    case TraceFormat::kSwf:
      out = trace_reading::read_swf(in, source, options, report);
      break;
    case TraceFormat::kSacct:
      // sacct --json starts with '{', sacct --parsable2 with its header
      out = in.peek() == '{' ? trace_reading::read_sacct_json(in, source, options, report)
                             : trace_reading::read_sacct(in, source, options, report);
      break;
    case TraceFormat::kSqueueJson:
      out = trace_reading::read_squeue_json(in, source, options, report);
      break;
    case TraceFormat::kPacmlLog:
      out = trace_reading::read_pacml_log(in, source, options, report);
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
