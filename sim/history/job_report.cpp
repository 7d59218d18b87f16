#include "sim/history/job_report.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "sim/history/history_records.h"

namespace pacml::sim {
namespace {

// The value of `key=` in "k1=v1,k2=v2"; false when absent.
bool field(std::string_view fields, std::string_view key, std::string& value) {
  size_t at = 0;
  while (at <= fields.size()) {
    const size_t end = std::min(fields.find(',', at), fields.size());
    const std::string_view item = fields.substr(at, end - at);
    if (item.size() > key.size() && item.substr(0, key.size()) == key && item[key.size()] == '=') {
      value = std::string(item.substr(key.size() + 1));
      return true;
    }
    at = end + 1;
  }
  return false;
}

bool whole_number(const std::string& text, long low, long high, long& out) {
  if (text.empty() || text.size() > 13) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (*end || errno || v < low || v > high) return false;
  out = v;
  return true;
}

bool seconds(const std::string& text, double& out) {
  if (text.empty() || text.size() > 32) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end || !std::isfinite(v) || !(v > 0 && v <= 1e6)) return false;
  out = v;
  return true;
}

}  // namespace

JobReport parse_job_report(std::string_view comment, MeasuredSteps& out) {
  const size_t tag = comment.rfind(kMeasuredTag);
  if (tag == std::string_view::npos) return JobReport::none;
  // "pacml-measured:steps=N,step_time=S" up to a blank or ';'
  const size_t start = tag + kMeasuredTag.size();
  const size_t end = std::min(comment.find_first_of(" \t;\n", start), comment.size());
  const std::string_view fields = comment.substr(start, end - start);
  std::string steps_text, time_text;
  MeasuredSteps m;
  if (!field(fields, "steps", steps_text) || !field(fields, "step_time", time_text) ||
      !whole_number(steps_text, 1, 1000000000000L, m.steps) || !seconds(time_text, m.step_time))
    return JobReport::malformed;
  out = m;
  return JobReport::valid;
}

void take_job_report(std::string_view comment, AccountingEntry& job, HistoryReport& report) {
  MeasuredSteps m;
  switch (parse_job_report(comment, m)) {
    case JobReport::valid:
      job.measured_steps = m.steps;
      job.measured_step_time = m.step_time;
      break;
    case JobReport::malformed:
      ++report.skipped
            ["malformed pacml-measured: reports (ignored; their jobs' elapsed time is used)"];
      break;
    case JobReport::none:
      break;
  }
}

}  // namespace pacml::sim
