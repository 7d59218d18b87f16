// The paper's pipeline (doc/MODEL.md §4; plugin/README.md, "With profile
// reference"): the job graph and β, the free RAMP servers, the Policy's
// action and the JctEstimator's placement (RAMP first fit) on an exact node
// list, in the profile's units.
#pragma once

#include "plugin/decision.h"

namespace pacml::plugin {

// The rest of a RAMP cluster's decision once the partition and its servers
// are known (Engine::decide).
SubmitResult decide_ramp(Decision&& shared, EngineState& engine);

}  // namespace pacml::plugin
