// Real job traces for replay: ElasticFlow CSV, SWF, Slurm `sacct --parsable2`
// and `squeue --json`. Readers turn a file into TraceRecords (what the trace
// says, in trace seconds); trace_workload.h maps them to simulator jobs.
//
// Bad input is never silently dropped: a malformed line, a negative time, an
// unknown column or an unreadable file is an InputError naming file:line —
// unless `skip_bad` is set, in which case the line is skipped and counted by
// reason in the TraceReport (which every command prints).
#pragma once

#include <cmath>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace pacml::sim {

// kPacmlLog: job_submit/pacml's JSON-lines decision log (squeue-shaped jobs).
enum class TraceFormat { kElasticFlow, kSwf, kSacct, kSqueueJson, kPacmlLog };

// "elasticflow", "swf", "sacct", "squeue-json", "pacml-log"; throws InputError(where, ...).
TraceFormat parse_trace_format(const std::string& text, const std::string& where);
const char* trace_format_name(TraceFormat format);

constexpr double kUnknown = NAN;

struct TraceRecord {
  std::string id;
  std::string source;            // "file:line"
  double submit = 0;             // seconds (trace clock)
  double duration = kUnknown;    // run time in seconds at `gpus` workers
  int gpus = 1;                  // workers (GPUs / nodes / processors) the trace job used
  std::string model;             // model name as the trace spells it ("" = none)
  double deadline = kUnknown;    // absolute, seconds
  double time_limit = kUnknown;  // requested wall time, seconds
  long iterations = -1;          // training iterations (ElasticFlow), -1 = unknown
  int batch = 0;                 // global batch size (ElasticFlow), 0 = unknown
  double beta = kUnknown;        // explicit β (Slurm comment "pacml:beta=0.4")
  long steps = -1;               // explicit N (Slurm comment "pacml:steps=100")
  // (a comment's "deadline=" sets `deadline`, relative to `submit`)
  std::string executable;  // SWF field 14 (application number), for model rules
};

struct TraceReport {
  std::string path;
  long lines = 0;    // data lines seen (headers and comments excluded)
  long records = 0;  // records read
  long skipped = 0;  // lines skipped (skip_bad), by reason below
  std::map<std::string, long> skipped_by_reason;
  void skip(const std::string& reason) { ++skipped, ++skipped_by_reason[reason]; }
};

struct TraceReadOptions {
  bool skip_bad = false;  // skip (and count) bad lines instead of failing
};

// Reads a trace file. ".gz" files are decompressed (via zlib's gzip format,
// read with `gzip -dc`). Throws InputError("path", ...) if unreadable.
std::vector<TraceRecord> read_trace_file(const std::string& path, TraceFormat format,
                                         const TraceReadOptions& options, TraceReport& report);

// The same from a stream; `source` names it in messages.
std::vector<TraceRecord> read_trace(std::istream& in, const std::string& source, TraceFormat format,
                                    const TraceReadOptions& options, TraceReport& report);

// Reads the "pacml:model=…,beta=…,deadline=…,steps=…" words of a Slurm job
// comment (core/slurm/slurm_syntax.h's grammar, the one job_submit/pacml
// reads) into `record`: model or graph → model, beta, steps (or iterations),
// and a deadline taken from record.submit. Throws InputError(where, ...).
void apply_pacml_comment(const std::string& comment, TraceRecord& record, const std::string& where);

}  // namespace pacml::sim
