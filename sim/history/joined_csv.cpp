// The joined history as CSV (history_records.h): what `pacml history join
// --out` writes and `pacml calibrate --history` reads back.
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/util/yaml_input.h"
#include "sim/history/history_records.h"
#include "sim/report/csv.h"

namespace pacml::sim {
namespace {

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

}  // namespace

namespace {
// Files written before jobs could report their own step time lack the last
// two columns; they are read as jobs that reported nothing.
constexpr const char* kHeaderBeforeReports =
    "job_id,decision,model,job_digest,device,batch,precision,gpus,strategy,steps,"
    "predicted_step_time,compute_share,state,elapsed,start";
const std::string kJoinedHeader =
    std::string(kHeaderBeforeReports) + ",measured_steps,measured_step_time";
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
        << (std::isnan(j.outcome.start) ? "" : csv_number(j.outcome.start)) << ','
        << (j.outcome.measured_steps > 0 ? std::to_string(j.outcome.measured_steps) : "") << ','
        << (j.outcome.measured_steps > 0 ? exact_number_text(j.outcome.measured_step_time) : "")
        << "\n";
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
  if (f.size() > 15 && !trim(f[15]).empty()) {
    j.outcome.measured_steps = parse_integer(f[15], 1, 1000000000000L, where, "measured_steps");
    j.outcome.measured_step_time = parse_finite_double(f[16], where, "measured_step_time");
    if (!(j.outcome.measured_step_time > 0))
      throw InputError(where, "measured_step_time must be positive");
  }
  return j;
}

}  // namespace

std::vector<JoinedJob> read_joined_csv(std::istream& in, const std::string& source) {
  std::vector<JoinedJob> out;
  std::string line;
  size_t width = 0;
  bool header = false;
  for (long number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = file_line(source, number);
    if (!header) {
      if (line != kJoinedHeader && line != kHeaderBeforeReports)
        throw InputError(where, std::string("not a joined history (`pacml history join --out`); "
                                            "expected the header ") +
                                    kJoinedHeader);
      width = split_fields(line, ',').size();
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
