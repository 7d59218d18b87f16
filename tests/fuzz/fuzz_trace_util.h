// Shared by the trace targets: the first byte of the input chooses strict
// reading or skip_bad (which must count, never fail on, a bad line).
#pragma once

#include <sstream>
#include <string>

#include "sim/trace/trace.h"
#include "tests/fuzz/fuzz_target.h"

namespace pacml::fuzz {

inline void read_trace_input(const std::string& input, sim::TraceFormat format) {
  sim::TraceReadOptions options;
  options.skip_bad = !input.empty() && (input[0] & 1);
  sim::TraceReport report;
  std::istringstream in(input);
  const std::vector<sim::TraceRecord> records =
      sim::read_trace(in, "fuzz-trace", format, options, report);
  PACML_FUZZ_CHECK(report.records == static_cast<long>(records.size()), "record count");
  // What the readers promise about every record they return (trace.h).
  for (const sim::TraceRecord& r : records) {
    const std::string at = " at " + r.source;
    PACML_FUZZ_CHECK(std::isfinite(r.submit) && r.submit >= 0, "submit time" + at);
    PACML_FUZZ_CHECK(r.gpus >= 1, "gpus" + at);
    PACML_FUZZ_CHECK(std::isnan(r.duration) || (std::isfinite(r.duration) && r.duration >= 0),
                     "duration" + at);
    PACML_FUZZ_CHECK(std::isnan(r.time_limit) || (std::isfinite(r.time_limit) && r.time_limit >= 0),
                     "time limit" + at);
    PACML_FUZZ_CHECK(std::isnan(r.deadline) || std::isfinite(r.deadline), "deadline" + at);
    PACML_FUZZ_CHECK(std::isnan(r.beta) || (r.beta > 0 && r.beta <= 1), "beta" + at);
    PACML_FUZZ_CHECK(r.steps == -1 || r.steps >= 1, "steps" + at);
    PACML_FUZZ_CHECK(r.iterations >= -1, "iterations" + at);
  }
}

}  // namespace pacml::fuzz
