// A GPU cluster's pipeline (plugin/README.md, "GPU cluster"): k GPUs chosen
// with the physical model by the GPU policies the trace replay uses
// (core/gpu/policy.h), asked of Slurm as counts so that Slurm picks the
// nodes (a drained node never strands a queued job) and users' -N, -w and
// --exclude keep their meaning.
#pragma once

#include "plugin/decision.h"

namespace pacml::plugin {

// The rest of a GPU cluster's decision once the partition and its nodes are
// known (Engine::decide).
SubmitResult decide_gpus(Decision&& shared, EngineState& engine);

}  // namespace pacml::plugin
