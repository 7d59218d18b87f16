// The simulator's small value syntaxes: β distributions ("B",
// "uniform(0.2,0.8)"), seed lists ("10", "3,5", "100..109"), shards ("1/4")
// and trace format names. The input is tried as each.
#include "core/util/error.h"
#include "sim/engine/beta_distribution.h"
#include "sim/experiment/evaluation.h"
#include "sim/experiment/experiment.h"
#include "sim/trace/trace.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_sim_values(const std::string& input) {
  try {
    const pacml::sim::BetaSpec beta = pacml::sim::BetaSpec::parse(input);
    beta.label();
    PACML_FUZZ_CHECK(beta.lo > 0 && beta.lo <= 1 && beta.hi > 0 && beta.hi <= 1,
                     "beta bounds in (0, 1]");
  } catch (const pacml::InputError&) {
  }
  try {
    PACML_FUZZ_CHECK(!pacml::sim::parse_seed_list(input, "--seeds").empty(), "some seeds");
  } catch (const pacml::InputError&) {
  }
  try {
    const auto [shard, shards] = pacml::sim::parse_shard(input, "--shard");
    PACML_FUZZ_CHECK(shard >= 0 && shard < shards, "0 <= shard < shards");
  } catch (const pacml::InputError&) {
  }
  pacml::sim::parse_trace_format(input, "--format");
}
PACML_FUZZ_TARGET("sim_values", fuzz_sim_values);
