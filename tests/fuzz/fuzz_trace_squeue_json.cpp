// Slurm squeue --json traces: sim/trace/trace.h.
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_trace_util.h"

static void fuzz_trace_squeue_json(const std::string& input) {
  pacml::fuzz::read_trace_input(input, pacml::sim::TraceFormat::kSqueueJson);
}
PACML_FUZZ_TARGET("trace_squeue_json", fuzz_trace_squeue_json);
