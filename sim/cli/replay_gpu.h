// `pacml replay` with profile physical (the default): a trace replayed on a GPU
// cluster with the physical model (sim/gpu/replay.h), on --cluster or the
// paper's cluster of --topology, in immediate or queue admission.
#pragma once

#include "sim/cli/replay_options.h"
#include "sim/gpu/trace.h"

namespace pacml::cli {

// Runs the replay `options` describe (cmd_replay.cpp parses them and refuses
// those of the paper's replay), with trace records mapped to jobs by
// `mapping`; returns the exit code.
int replay_on_gpus(const ReplayOptions& options, const gpu::TraceMapping& mapping);

}  // namespace pacml::cli
