#include "sim/history/job_report.h"

#include <algorithm>
#include <string>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"

#include "sim/history/history_records.h"

namespace pacml::sim {

JobReport parse_job_report(std::string_view comment, MeasuredSteps& out) {
  const size_t tag = comment.rfind(kMeasuredTag);
  if (tag == std::string_view::npos) return JobReport::none;
  // "pacml-measured:steps=N,step_time=S" up to a blank or ';'
  const size_t start = tag + kMeasuredTag.size();
  const size_t end = std::min(comment.find_first_of(" \t;\n", start), comment.size());
  const std::string_view fields = comment.substr(start, end - start);
  // The project's number readers; a user's bad text is a malformed report,
  // not an error.
  MeasuredSteps m;
  bool have_steps = false, have_time = false;
  try {
    for (const std::string& item : split_fields(fields, ',')) {
      const size_t eq = item.find('=');
      const std::string key = item.substr(0, eq),
                        value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (key == "steps") {
        m.steps = parse_integer(value, 1, 1000000000000L, "report", "steps");
        have_steps = true;
      } else if (key == "step_time") {
        m.step_time = parse_finite_double(value, "report", "step_time");
        have_time = m.step_time > 0 && m.step_time <= 1e6;
      }
    }
  } catch (const InputError&) {
    return JobReport::malformed;
  }
  if (!have_steps || !have_time) return JobReport::malformed;
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
