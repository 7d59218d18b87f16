// pacml.conf, the Slurm plugin's configuration (plugin/config.h), including
// its hostlists ("gpu[01-12]") and node maps.
#include <cmath>
#include <sstream>

#include "plugin/config.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_pacml_conf(const std::string& input) {
  std::istringstream in(input);
  const pacml::plugin::PluginConfig c = pacml::plugin::parse_plugin_config(in, "pacml.conf");
  PACML_FUZZ_CHECK(c.num_servers() >= 1, "a cluster");
  PACML_FUZZ_CHECK(c.nodes.empty() || static_cast<int>(c.nodes.size()) == c.num_servers(),
                   "one node name per server");
  PACML_FUZZ_CHECK(
      c.time_limit_factor >= 1 && std::isfinite(c.time_limit_extra) && c.time_limit_extra >= 0,
      "time limits");
  PACML_FUZZ_CHECK(c.default_steps >= 1 && c.max_graph_bytes > 0, "steps and graph size");
  PACML_FUZZ_CHECK(std::isfinite(c.margin) && c.margin >= 0 && c.margin < 10,
                   "a margin in [0, 10)");
}
PACML_FUZZ_TARGET("pacml_conf", fuzz_pacml_conf);
