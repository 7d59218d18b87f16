// Slurm's side of the history (history_records.h): `sacct -P` jobs, and
// their join with the decision log.
#include <set>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/util/yaml_input.h"
#include "sim/history/history_records.h"
#include "sim/history/job_report.h"

namespace pacml::sim {
namespace {

// The first word of a state: "CANCELLED by 1234" is CANCELLED.
std::string state_word(const std::string& text) {
  const std::string t(trim(text));
  return t.substr(0, t.find(' '));
}

double elapsed_seconds(const std::map<std::string, int>& col, const std::vector<std::string>& f,
                       const std::string& where) {
  const auto raw = col.find("ElapsedRaw");
  if (raw != col.end())
    return static_cast<double>(
        parse_integer(trim(f[raw->second]), 0, 1L << 40, where, "ElapsedRaw"));
  return slurm::parse_duration_seconds(std::string(trim(f[col.at("Elapsed")])), where, "Elapsed");
}

std::map<std::string, int> sacct_header(const std::string& line, const std::string& where) {
  std::map<std::string, int> col;
  const std::vector<std::string> names = split_fields(line, '|');
  for (size_t i = 0; i < names.size(); ++i) col[std::string(trim(names[i]))] = static_cast<int>(i);
  for (const char* need : {"JobID", "State"})
    if (!col.count(need))
      throw InputError(where, std::string("missing column '") + need +
                                  "'; use sacct -P --format=JobID,State,Elapsed,Start,Comment");
  if (!col.count("Elapsed") && !col.count("ElapsedRaw"))
    throw InputError(where, "missing column 'Elapsed' (or 'ElapsedRaw')");
  return col;
}

// The row's fields; a last Comment column keeps the '|' a user wrote in it.
std::vector<std::string> row_fields(const std::string& line, const std::map<std::string, int>& col,
                                    size_t width, const std::string& where) {
  std::vector<std::string> f = split_fields(line, '|');
  const auto comment = col.find("Comment");
  if (f.size() > width && comment != col.end() && comment->second == static_cast<int>(width) - 1) {
    for (size_t i = width; i < f.size(); ++i) f[width - 1] += "|" + f[i];
    f.resize(width);
  }
  if (f.size() != width)
    throw InputError(where, "expected " + std::to_string(width) +
                                " '|'-separated fields (as the header), got " +
                                std::to_string(f.size()));
  return f;
}

}  // namespace

std::vector<AccountingEntry> read_sacct_accounting(std::istream& in, const std::string& source,
                                                   HistoryReport& report) {
  std::vector<AccountingEntry> out;
  std::map<std::string, int> col;
  size_t width = 0;
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = file_line(source, number);
    if (col.empty()) {
      col = sacct_header(line, where);
      width = split_fields(line, '|').size();
      continue;
    }
    ++report.lines;
    const std::vector<std::string> f = row_fields(line, col, width, where);
    AccountingEntry a;
    a.source = where;
    a.job_id = std::string(trim(f[col.at("JobID")]));
    if (a.job_id.find('.') != std::string::npos) {  // 46.batch, 46.0: steps of job 46
      ++report.skipped["job step (not a job)"];
      continue;
    }
    if (a.job_id.empty()) throw InputError(where, "empty JobID");
    a.state = state_word(f[col.at("State")]);
    if (a.state.empty()) throw InputError(where, "empty State");
    a.elapsed = elapsed_seconds(col, f, where);
    const auto start = col.find("Start");
    const std::string start_text = start == col.end() ? "" : std::string(trim(f[start->second]));
    if (!start_text.empty() && start_text != "Unknown" && start_text != "None")
      a.start = slurm::parse_timestamp(start_text, where);
    const auto comment = col.find("Comment");
    if (comment != col.end()) take_job_report(f[comment->second], a, report);
    out.push_back(std::move(a));
  }
  if (col.empty()) throw InputError(source, "empty sacct output (no header line)");
  return out;
}

std::vector<AccountingEntry> read_sacct_accounting_file(const std::string& path,
                                                        HistoryReport& report) {
  std::ifstream in = open_input_file(path);
  return read_any_sacct_accounting(in, path, report);
}

JoinResult join_history(const std::vector<DecisionEntry>& decisions,
                        const std::vector<AccountingEntry>& accounting) {
  JoinResult result;
  std::map<std::string, const AccountingEntry*> by_id;
  for (const AccountingEntry& a : accounting) by_id[a.job_id] = &a;  // a requeued job: its last row
  std::set<std::string> used;
  for (const DecisionEntry& d : decisions) {
    if (d.job_id.empty()) {
      result.unjoined.push_back(d.source + ": decision " + d.decision +
                                " has no job id (the log never learnt it)");
      continue;
    }
    const auto it = by_id.find(d.job_id);
    if (it == by_id.end()) {
      result.unjoined.push_back(d.source + ": job " + d.job_id +
                                " is not in the accounting (outside sacct's time window?)");
      continue;
    }
    if (!used.insert(d.job_id).second) {
      result.unjoined.push_back(d.source + ": job " + d.job_id +
                                " has a second decision; the first one is kept");
      continue;
    }
    result.joined.push_back({d, *it->second});
  }
  result.accounting_without_decision = static_cast<long>(by_id.size() - used.size());
  return result;
}

}  // namespace pacml::sim
