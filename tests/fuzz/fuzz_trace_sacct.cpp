// Slurm sacct --parsable2 traces: sim/trace/trace.h.
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_trace_util.h"

static void fuzz_trace_sacct(const std::string& input) {
  pacml::fuzz::read_trace_input(input, pacml::sim::TraceFormat::kSacct);
}
PACML_FUZZ_TARGET("trace_sacct", fuzz_trace_sacct);
