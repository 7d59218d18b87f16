// `pacml replay --cluster FILE`: a trace replayed on a GPU cluster with the
// physical model (sim/gpu/gpu_replay.h), in immediate or queue admission.
#pragma once

#include "sim/cli/args.h"

namespace pacml::cli {

// Declares --cluster, --throughput-table, --admission and --order.
void add_gpu_replay_options(Args& args);

// Runs the replay the parsed `args` describe; returns the exit code.
int replay_on_gpu_cluster(const Args& args);

}  // namespace pacml::cli
