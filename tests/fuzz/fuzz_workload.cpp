// Fitted workload YAML: sim/gpu/fitted_workload.h. A workload that parses
// can draw jobs: a few are drawn and each has a deadline after its arrival.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "sim/gpu/fitted_workload.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_workload(const std::string& input) {
  std::istringstream in(input);
  const pacml::gpu::FittedWorkload w = pacml::gpu::load_workload(in, "fuzz-workload.yaml");
  static auto estimator =
      std::make_shared<const pacml::PhysicalEstimator>(pacml::load_cluster("dgx-a100-4x8"));
  pacml::DurationModel durations(estimator);
  for (const pacml::gpu::Job& job : pacml::gpu::generate_jobs(w, 1.0, 3, 1, durations))
    if (!(job.deadline >= job.submit) || job.iterations < 1 || !std::isfinite(job.submit))
      throw std::logic_error("a drawn job is malformed");
}
PACML_FUZZ_TARGET("workload", fuzz_workload);
