// Standard Workload Format (SWF) traces: sim/trace/trace.h.
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_trace_util.h"

static void fuzz_trace_swf(const std::string& input) {
  pacml::fuzz::read_trace_input(input, pacml::sim::TraceFormat::kSwf);
}
PACML_FUZZ_TARGET("trace_swf", fuzz_trace_swf);
