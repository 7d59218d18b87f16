// Device model YAML: core/zoo/device_model.h. A device that parses must be
// usable: a small zoo model is costed on it and must give a valid graph.
#include <sstream>

#include "core/graph/job_graph.h"
#include "core/zoo/device_model.h"
#include "core/zoo/model_zoo.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_device_model(const std::string& input) {
  std::istringstream in(input);
  pacml::ZooOptions options;
  options.device = pacml::load_device_model(in, "fuzz-device.yaml");
  options.batch = 8;
  pacml::ZooGraph zoo = pacml::build_zoo_model("alexnet", options);
  pacml::make_job_graph(std::move(zoo.graph));
}
PACML_FUZZ_TARGET("device_model", fuzz_device_model);
