// ElasticFlow CSV traces: sim/trace/trace.h.
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_trace_util.h"

static void fuzz_trace_elasticflow(const std::string& input) {
  pacml::fuzz::read_trace_input(input, pacml::sim::TraceFormat::kElasticFlow);
}
PACML_FUZZ_TARGET("trace_elasticflow", fuzz_trace_elasticflow);
