// The Slurm field syntaxes the trace readers share (sim/trace/trace.h): times
// ("2026-11-29T23:05:01"), time limits ("D-HH:MM:SS", "UNLIMITED") and job
// comments ("pacml:model=resnet50,beta=0.4"). One input line is tried as each.
#include <cmath>

#include "core/util/error.h"
#include "sim/trace/trace.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_slurm_fields(const std::string& input) {
  try {
    const double t = pacml::sim::parse_slurm_time(input, "time");
    PACML_FUZZ_CHECK(std::isfinite(t), "time is finite");
  } catch (const pacml::InputError&) {
  }
  try {
    const double d = pacml::sim::parse_slurm_duration(input, "duration");
    PACML_FUZZ_CHECK(std::isnan(d) || (std::isfinite(d) && d >= 0), "duration >= 0 or unknown");
  } catch (const pacml::InputError&) {
  }
  pacml::sim::TraceRecord record;
  pacml::sim::parse_pacml_comment(input, record, "comment");
  PACML_FUZZ_CHECK(std::isnan(record.beta) || (record.beta > 0 && record.beta <= 1), "beta");
  PACML_FUZZ_CHECK(record.steps == -1 || record.steps >= 1, "steps");
}
PACML_FUZZ_TARGET("slurm_fields", fuzz_slurm_fields);
