// The decision log's side of the history (history_records.h): each accepted
// GPU decision with what it predicted, as plugin/engine.cpp writes it.
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "sim/history/history_records.h"

namespace pacml::sim {
namespace {

// A line that is not a usable decision: why, for the report.
struct Unusable {
  std::string reason;
};

std::string text_field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string())
    throw InputError(where, std::string("'") + key + "' must be a string");
  return j[key].get<std::string>();
}

double number_field(const nlohmann::json& j, const char* key, const std::string& where, double lo,
                    double hi) {
  if (!j.contains(key) || !j[key].is_number())
    throw InputError(where, std::string("'") + key + "' must be a number");
  const double v = j[key].get<double>();
  if (!(v >= lo && v <= hi))
    throw InputError(where, std::string("'") + key + "' is " + exact_number_text(v) + ", outside " +
                                exact_number_text(lo) + " – " + exact_number_text(hi));
  return v;
}

// The job id as text: a number in the log (null until Slurm named one).
std::string job_id_text(const nlohmann::json& j, const std::string& where) {
  if (!j.contains("job_id") || j["job_id"].is_null()) return "";
  if (!j["job_id"].is_number_unsigned())
    throw InputError(where, "'job_id' must be a non-negative integer or null");
  return std::to_string(j["job_id"].get<std::uint64_t>());
}

DecisionEntry decision_entry(const nlohmann::json& j, const std::string& where) {
  const std::string outcome =
      j.contains("outcome") && j["outcome"].is_string() ? j["outcome"].get<std::string>() : "";
  if (outcome == "rejected") throw Unusable{"rejected (no job ran)"};
  if (outcome == "not_created") throw Unusable{"Slurm created no job"};
  if (!j.contains("step_time"))
    throw Unusable{"no predicted step time (a paper-world decision, or a log from before it)"};
  DecisionEntry d;
  d.source = where;
  d.decision = text_field(j, "decision", where);
  d.job_id = job_id_text(j, where);
  d.model = text_field(j, "model", where);
  d.job_digest = text_field(j, "job_digest", where);
  d.device = text_field(j, "device", where);
  d.precision = text_field(j, "precision", where);
  d.strategy = text_field(j, "strategy", where);
  d.batch = static_cast<int>(number_field(j, "batch", where, 1, 1 << 30));
  d.gpus = static_cast<int>(number_field(j, "gpus", where, 1, 1 << 20));
  d.steps = static_cast<long>(number_field(j, "steps", where, 1, 1e12));
  // The model's prediction, never `corrected_step_time` (what a decision under
  // pacml.conf's correction: used): a refit against the corrected step would
  // fit the correction's residual and undo it (doc/PHYSICAL.md §11).
  d.step_time = number_field(j, "step_time", where, 1e-9, 1e9);
  d.compute_share = number_field(j, "compute_share", where, 0, 1);
  return d;
}

}  // namespace

std::vector<DecisionEntry> read_decision_log(std::istream& in, const std::string& source,
                                             HistoryReport& report) {
  std::vector<DecisionEntry> out;
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    ++report.lines;
    const std::string where = file_line(source, number);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw InputError(where, "not a JSON object (a decision log has one per line)");
    }
    if (!j.is_object()) throw InputError(where, "not a JSON object");
    try {
      out.push_back(decision_entry(j, where));
    } catch (const Unusable& u) {
      ++report.skipped[u.reason];
    }
  }
  return out;
}

std::vector<DecisionEntry> read_decision_log_file(const std::string& path, HistoryReport& report) {
  std::ifstream in = open_input_file(path);
  return read_decision_log(in, path, report);
}

}  // namespace pacml::sim
