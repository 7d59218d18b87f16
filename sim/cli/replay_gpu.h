// `pacml replay` with profile physical (the default): a trace replayed on a GPU
// cluster with the physical model (sim/gpu/replay.h), on --cluster or the
// paper's cluster of --topology, in immediate or queue admission.
#pragma once

#include "core/util/args.h"
#include "sim/gpu/trace.h"

namespace pacml::cli {

// Runs the replay the parsed `args` describe (cmd_replay.cpp declares the
// options and refuses those of the paper's replay), with trace records mapped
// to jobs by `mapping`; returns the exit code.
int replay_on_gpus(const Args& args, const gpu::TraceMapping& mapping);

}  // namespace pacml::cli
