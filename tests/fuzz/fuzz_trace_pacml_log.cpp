// job_submit/pacml's JSON-lines decision log read as a trace (pacml-log):
// sim/trace/trace.h. Lines carry the request in their own fields (model,
// graph, beta, steps) or in a pacml: comment; not_created lines are skipped.
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_trace_util.h"

static void fuzz_trace_pacml_log(const std::string& input) {
  pacml::fuzz::read_trace_input(input, pacml::sim::TraceFormat::kPacmlLog);
}
PACML_FUZZ_TARGET("trace_pacml_log", fuzz_trace_pacml_log);
