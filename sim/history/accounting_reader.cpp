// Slurm's side of the history (history_records.h): `sacct -P` jobs, the join
// with the decision log, and the joined CSV written and read back.
#include <algorithm>
#include <set>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "sim/history/history_records.h"
#include "sim/report/csv.h"

namespace pacml::sim {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out(1);
  for (const char ch : line) {
    if (ch == sep)
      out.emplace_back();
    else
      out.back().push_back(ch);
  }
  return out;
}

// One CSV line as csv_field writes it: fields quoted when they hold a comma
// or a quote, quotes doubled.
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"', ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  if (quoted) throw InputError(where, "a quoted field is not closed");
  return out;
}

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
  const std::vector<std::string> names = split(line, '|');
  for (size_t i = 0; i < names.size(); ++i) col[std::string(trim(names[i]))] = static_cast<int>(i);
  for (const char* need : {"JobID", "State"})
    if (!col.count(need))
      throw InputError(where, std::string("missing column '") + need +
                                  "'; use sacct -P --format=JobID,State,Elapsed,Start");
  if (!col.count("Elapsed") && !col.count("ElapsedRaw"))
    throw InputError(where, "missing column 'Elapsed' (or 'ElapsedRaw')");
  return col;
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
      width = split(line, '|').size();
      continue;
    }
    ++report.lines;
    const std::vector<std::string> f = split(line, '|');
    if (f.size() != width)
      throw InputError(where, "expected " + std::to_string(width) +
                                  " '|'-separated fields (as the header), got " +
                                  std::to_string(f.size()));
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
    out.push_back(std::move(a));
  }
  if (col.empty()) throw InputError(source, "empty sacct output (no header line)");
  return out;
}

std::vector<AccountingEntry> read_sacct_accounting_file(const std::string& path,
                                                        HistoryReport& report) {
  std::ifstream in = open_input_file(path);
  return read_sacct_accounting(in, path, report);
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

namespace {
constexpr const char* kJoinedHeader =
    "job_id,decision,model,job_digest,device,batch,precision,gpus,strategy,steps,"
    "predicted_step_time,compute_share,state,elapsed,start";
}  // namespace

std::string joined_csv_text(const std::vector<JoinedJob>& jobs) {
  std::ostringstream out;
  out << kJoinedHeader << "\n";
  for (const JoinedJob& j : jobs) {
    const DecisionEntry& d = j.decision;
    out << csv_field(d.job_id) << ',' << csv_field(d.decision) << ',' << csv_field(d.model) << ','
        << csv_field(d.job_digest) << ',' << csv_field(d.device) << ',' << d.batch << ','
        << csv_field(d.precision) << ',' << d.gpus << ',' << csv_field(d.strategy) << ',' << d.steps
        << ',' << exact_number_text(d.step_time) << ',' << exact_number_text(d.compute_share) << ','
        << csv_field(j.outcome.state) << ',' << exact_number_text(j.outcome.elapsed) << ','
        << (std::isnan(j.outcome.start) ? "" : csv_number(j.outcome.start)) << "\n";
  }
  return out.str();
}

namespace {

JoinedJob joined_row(const std::vector<std::string>& f, const std::string& where) {
  JoinedJob j;
  DecisionEntry& d = j.decision;
  d.source = j.outcome.source = where;
  d.job_id = j.outcome.job_id = f[0];
  d.decision = f[1], d.model = f[2], d.job_digest = f[3], d.device = f[4];
  d.batch = static_cast<int>(parse_integer(f[5], 1, 1 << 30, where, "batch"));
  d.precision = f[6];
  d.gpus = static_cast<int>(parse_integer(f[7], 1, 1 << 20, where, "gpus"));
  d.strategy = f[8];
  d.steps = parse_integer(f[9], 1, 1000000000000L, where, "steps");
  d.step_time = parse_finite_double(f[10], where, "predicted_step_time");
  if (!(d.step_time > 0)) throw InputError(where, "predicted_step_time must be positive");
  d.compute_share = parse_finite_double(f[11], where, "compute_share");
  if (!(d.compute_share >= 0 && d.compute_share <= 1))
    throw InputError(where, "compute_share must be in [0, 1]");
  j.outcome.state = f[12];
  if (j.outcome.state.empty()) throw InputError(where, "empty state");
  j.outcome.elapsed = parse_non_negative(f[13], where, "elapsed");
  if (!trim(f[14]).empty()) j.outcome.start = parse_finite_double(f[14], where, "start");
  if (d.model.empty()) throw InputError(where, "empty model");
  return j;
}

}  // namespace

std::vector<JoinedJob> read_joined_csv(std::istream& in, const std::string& source) {
  std::vector<JoinedJob> out;
  std::string line;
  const size_t width = split(kJoinedHeader, ',').size();
  bool header = false;
  for (long number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = file_line(source, number);
    if (!header) {
      if (line != kJoinedHeader)
        throw InputError(where, std::string("not a joined history (`pacml history join --out`); "
                                            "expected the header ") +
                                    kJoinedHeader);
      header = true;
      continue;
    }
    const std::vector<std::string> f = split_csv(line, where);
    if (f.size() != width)
      throw InputError(
          where, "expected " + std::to_string(width) + " fields, got " + std::to_string(f.size()));
    out.push_back(joined_row(f, where));
  }
  if (!header) throw InputError(source, "empty joined history (no header line)");
  return out;
}

std::vector<JoinedJob> read_joined_csv_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return read_joined_csv(in, path);
}

}  // namespace pacml::sim
