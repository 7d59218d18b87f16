// The users' --pacml-* option values as the job_submit plugin reads them
// (plugin/request.h, core/slurm/slurm_syntax.h). Each input line "KEY=VALUE" becomes
// the SPANK environment entry of --pacml-KEY, except a line starting with '#',
// which is the job's --comment (the pacml:… fallback); every value is also
// tried as a deadline and as a Slurm duration.
#include <cmath>
#include <sstream>
#include <vector>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "plugin/request.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_plugin_options(const std::string& input) {
  std::vector<std::string> env;
  std::string comment, line;
  std::istringstream lines(input);
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '#') {
      comment = line.substr(1);
      continue;
    }
    env.push_back(pacml::plugin::kSpankOptionPrefix + line);
    const std::string value = line.substr(line.find('=') + 1);
    try {
      const double left = pacml::slurm::parse_deadline_seconds(value, 1.8e9, "--pacml-deadline");
      PACML_FUZZ_CHECK(std::isfinite(left) && left > 0, "a deadline is in the future");
    } catch (const pacml::InputError&) {
    }
    try {
      const double d = pacml::slurm::parse_duration_seconds(value, "time_limit_extra", "duration");
      PACML_FUZZ_CHECK(std::isfinite(d) && d >= 0, "a duration is finite and >= 0");
    } catch (const pacml::InputError&) {
    }
  }
  const pacml::plugin::JobRequest r = pacml::plugin::extract_request(env, comment);
  PACML_FUZZ_CHECK(!r.beta || (*r.beta > 0 && *r.beta <= 1), "beta in (0, 1]");
  PACML_FUZZ_CHECK(!r.steps || *r.steps >= 1, "steps >= 1");
  PACML_FUZZ_CHECK(r.graph.empty() || r.model.empty(), "not both a graph and a model");
}
PACML_FUZZ_TARGET("plugin_options", fuzz_plugin_options);
