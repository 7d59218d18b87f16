// A record of prediction and outcome (doc/PHYSICAL.md §11): what
// job_submit/pacml predicted for each job (its decision log, one JSON object
// a line, plugin/decision_log.h) lined up with what Slurm's accounting says
// the job did (`sacct -P`: state, elapsed, start). `pacml history join`
// writes the pairs as a CSV that `pacml calibrate --history` reads back.
//
// Every reader names a bad line as file:line (InputError); nothing is
// dropped silently: lines that cannot be joined are counted by reason.
#pragma once

#include <cmath>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace pacml::sim {

// One accepted GPU decision with its prediction.
struct DecisionEntry {
  std::string source;  // file:line
  std::string decision, job_id;
  std::string model, job_digest, device, precision, strategy;
  int batch = 0, gpus = 0;
  long steps = 0;
  double step_time = NAN;      // predicted seconds per step on `gpus`
  double compute_share = NAN;  // of that step (core/correction/step_correction.h)
};

// One job of `sacct -P` or `sacct --json` (job steps such as 46.batch are
// not jobs).
struct AccountingEntry {
  std::string source, job_id;
  std::string state;     // first word: COMPLETED, TIMEOUT, CANCELLED, FAILED, ...
  double elapsed = NAN;  // seconds
  double start = NAN;    // epoch seconds; NaN: not started or not printed
  // What the job reported it measured (job_report.h; sacct's Comment):
  // steps 0 when it reported nothing usable.
  long measured_steps = 0;
  double measured_step_time = NAN;  // seconds per step
};

// A decision and its job's accounting.
struct JoinedJob {
  DecisionEntry decision;
  AccountingEntry outcome;
};

// What was read and what could not be used, by reason.
struct HistoryReport {
  long lines = 0;
  std::map<std::string, long> skipped;  // reason → lines
};

// The decision log's accepted GPU decisions. Rejected decisions, decisions
// Slurm created no job for and paper-world decisions (no predicted step
// time) are counted in `report`, not returned.
std::vector<DecisionEntry> read_decision_log(std::istream& in, const std::string& source,
                                             HistoryReport& report);
// `sacct -P` (--parsable2) output with a header naming JobID, State and
// Elapsed or ElapsedRaw (Start and Comment optional, other columns
// ignored). A Comment column given last may hold '|' (it is the user's text).
std::vector<AccountingEntry> read_sacct_accounting(std::istream& in, const std::string& source,
                                                   HistoryReport& report);
// `sacct --json` output (sacct_json_reader.cpp: Slurm 22.05's data_parser
// v0.0.38 through 24.11's v0.0.42): jobs[] with job_id, state.current,
// time.elapsed, time.start and comment.job. Errors name the file and the JSON path
// ("sacct.json: jobs[3].time.elapsed must be seconds …").
std::vector<AccountingEntry> read_sacct_json_accounting(std::istream& in, const std::string& source,
                                                        HistoryReport& report);
// Either: JSON when the text starts with '{', else sacct -P.
std::vector<AccountingEntry> read_any_sacct_accounting(std::istream& in, const std::string& source,
                                                       HistoryReport& report);

struct JoinResult {
  std::vector<JoinedJob> joined;
  // Decisions that could not be joined, "file:line: why", in log order.
  std::vector<std::string> unjoined;
  long accounting_without_decision = 0;  // jobs pacml did not decide
};
JoinResult join_history(const std::vector<DecisionEntry>& decisions,
                        const std::vector<AccountingEntry>& accounting);

// The joined CSV (a header, then one job a line) and its reader.
std::string joined_csv_text(const std::vector<JoinedJob>& jobs);
std::vector<JoinedJob> read_joined_csv(std::istream& in, const std::string& source);

// Opens and reads a file with the reader above; throws InputError(path).
std::vector<DecisionEntry> read_decision_log_file(const std::string& path, HistoryReport& report);
std::vector<AccountingEntry> read_sacct_accounting_file(const std::string& path,
                                                        HistoryReport& report);
std::vector<JoinedJob> read_joined_csv_file(const std::string& path);

}  // namespace pacml::sim
