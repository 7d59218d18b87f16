// Device model YAML: core/zoo/device_model.h. A device that parses must be
// usable: a small zoo model is costed on it and must give a valid graph, and
// its host cost (the optional `host:` section) must lie in the declared
// ranges, whichever form `per_op` took (one number or one per family).
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/graph/job_graph.h"
#include "core/zoo/device_model.h"
#include "core/zoo/model_zoo.h"
#include "tests/fuzz/fuzz_target.h"

static void check_host(const pacml::HostCost& host) {
  const auto within = [](double v, double max) { return std::isfinite(v) && v >= 0 && v <= max; };
  for (double per_op : host.per_op)
    if (!within(per_op, 1e-2)) throw std::logic_error("host per_op outside [0, 1e-2] s");
  if (!within(host.per_step, 1)) throw std::logic_error("host per_step outside [0, 1] s");
}

static void fuzz_device_model(const std::string& input) {
  std::istringstream in(input);
  pacml::ZooOptions options;
  options.device = pacml::load_device_model(in, "fuzz-device.yaml");
  check_host(options.device.host);
  options.batch = 8;
  pacml::ZooGraph zoo = pacml::build_zoo_model("alexnet", options);
  pacml::make_job_graph(std::move(zoo.graph));
}
PACML_FUZZ_TARGET("device_model", fuzz_device_model);
