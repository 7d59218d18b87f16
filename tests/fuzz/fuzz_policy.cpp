// Policy names and lists ("para_max,fixed:4", --policy/--policies, the
// experiment's policies:): sim/engine/policy_factory.h.
#include "sim/engine/policy_factory.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_policy(const std::string& input) {
  for (const std::string& name : pacml::sim::split_policy_list(input, "--policies"))
    pacml::sim::make_policy(name, "--policy");
}
PACML_FUZZ_TARGET("policy", fuzz_policy);
