// SchedulerParameters as the plugin reads it from slurm_conf.sched_params
// (plugin/config.h): Slurm's own tokens pass, pacml_* tokens are checked.
#include <cmath>

#include "core/util/error.h"
#include "plugin/config.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_sched_params(const std::string& input) {
  using pacml::plugin::SchedParams;
  const SchedParams p = pacml::plugin::parse_sched_params(input);
  if (p.margin)
    PACML_FUZZ_CHECK(std::isfinite(*p.margin) && *p.margin >= 0 && *p.margin < 10,
                     "a margin in [0, 10)");
  // What was accepted prints back to tokens that parse to the same settings
  // (the plugin's engine compares text() to notice changed settings). A
  // rejection of text() here is a bug too, not an expected InputError.
  SchedParams again;
  try {
    again = pacml::plugin::parse_sched_params(p.text());
  } catch (const pacml::InputError& e) {
    throw std::logic_error(std::string("property failed: text() parses back: ") + e.what());
  }
  PACML_FUZZ_CHECK(again.conf == p.conf && again.policy == p.policy &&
                       again.on_block == p.on_block && again.margin == p.margin,
                   "text() parses back to the same settings");
  PACML_FUZZ_CHECK(again.text() == p.text(), "text() round-trips");
  pacml::plugin::PluginConfig cfg;
  pacml::plugin::apply_sched_params(cfg, p);
  if (p.margin) PACML_FUZZ_CHECK(cfg.margin == *p.margin, "the margin is applied");
  if (p.policy) PACML_FUZZ_CHECK(cfg.policy == *p.policy, "the policy is applied");
  if (p.on_block) PACML_FUZZ_CHECK(cfg.on_block == *p.on_block, "on_block is applied");
}
PACML_FUZZ_TARGET("sched_params", fuzz_sched_params);
