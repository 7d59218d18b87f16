// Experiment YAML: sim/experiment/experiment.h (parsing and validation only:
// graphs and traces are not loaded).
#include "sim/experiment/experiment.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_experiment(const std::string& input) {
  pacml::sim::parse_experiment(input, "fuzz.yaml", "/nonexistent");
}
PACML_FUZZ_TARGET("experiment", fuzz_experiment);
