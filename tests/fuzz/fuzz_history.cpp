// The history's readers (sim/history/history_records.h): a decision log, sacct
// -P output and a joined CSV, picked by the first byte (0: log, 1: sacct,
// else: joined CSV). What they accept is usable: a positive predicted step
// time and a compute share in [0, 1], an elapsed time that is not negative,
// a job's own report (sacct's Comment, job_report.h) of at least one step
// and a positive step time, or none; a joined CSV written back reads back to
// the same jobs.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/history/history_records.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

void check(const pacml::sim::DecisionEntry& d) {
  if (!(d.step_time > 0) || !(d.compute_share >= 0 && d.compute_share <= 1) || d.steps < 1)
    throw std::logic_error("accepted a decision without a usable prediction");
}

void check(const pacml::sim::AccountingEntry& a) {
  if (!(a.elapsed >= 0) || a.state.empty()) throw std::logic_error("accepted a bad job");
  if (a.measured_steps != 0 && !(a.measured_steps >= 1 && a.measured_step_time > 0))
    throw std::logic_error("accepted a report without a usable step time");
}

void joined(const std::string& text) {
  std::istringstream in(text);
  const auto jobs = pacml::sim::read_joined_csv(in, "fuzz.csv");
  for (const auto& j : jobs) {
    check(j.decision);
    check(j.outcome);
  }
  std::istringstream again(pacml::sim::joined_csv_text(jobs));
  if (pacml::sim::read_joined_csv(again, "again.csv").size() != jobs.size())
    throw std::logic_error("a joined CSV written back lost jobs");
}

}  // namespace

static void fuzz_history(const std::string& input) {
  if (input.empty()) return;
  const std::string body = input.substr(1);
  std::istringstream in(body);
  pacml::sim::HistoryReport report;
  if (input[0] == 0) {
    for (const auto& d : pacml::sim::read_decision_log(in, "fuzz.jsonl", report)) check(d);
  } else if (input[0] == 1) {
    for (const auto& a : pacml::sim::read_sacct_accounting(in, "fuzz.txt", report)) check(a);
  } else {
    joined(body);
  }
}
PACML_FUZZ_TARGET("history", fuzz_history);
