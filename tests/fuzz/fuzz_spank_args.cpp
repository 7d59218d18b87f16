// The SPANK plugin's plugstack.conf arguments (plugin/spank_step.h
// parse_spank_args): each input line is one argument. Accepted limits are
// positive.
#include <sstream>
#include <string>
#include <vector>

#include "plugin/spank_step.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_spank_args(const std::string& input) {
  std::vector<std::string> lines;
  std::istringstream in(input);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<char*> argv;
  for (std::string& line : lines) argv.push_back(line.data());
  pacml::plugin::GraphLimits limits;
  pacml::plugin::parse_spank_args(static_cast<int>(argv.size()), argv.data(), limits);
  PACML_FUZZ_CHECK(limits.max_bytes >= 1 && limits.max_ops >= 1 && limits.max_edges >= 1,
                   "limits are positive");
}
PACML_FUZZ_TARGET("spank_args", fuzz_spank_args);
