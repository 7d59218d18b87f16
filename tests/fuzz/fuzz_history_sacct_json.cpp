// sacct --json as the history's accounting (sim/history/sacct_json_reader.cpp):
// whatever it accepts is a job with an id, a state and an elapsed time >= 0.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/history/history_records.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_history_sacct_json(const std::string& input) {
  std::istringstream in(input);
  pacml::sim::HistoryReport report;
  for (const auto& a : pacml::sim::read_sacct_json_accounting(in, "fuzz.json", report))
    if (a.job_id.empty() || a.state.empty() || !(a.elapsed >= 0) ||
        !(std::isnan(a.start) || (a.start > 0 && a.start < 4294967294.0)) ||
        (a.measured_steps != 0 && !(a.measured_steps >= 1 && a.measured_step_time > 0)))
      throw std::logic_error("accepted an unusable job");
}
PACML_FUZZ_TARGET("history_sacct_json", fuzz_history_sacct_json);
