// Where a command's job graph comes from: --graph FILE (PipeDream graph.txt or
// native YAML) or --model NAME (the built-in model zoo, with --batch etc.).
#pragma once

#include <string>

#include "core/graph/job_graph.h"
#include "sim/cli/args.h"

namespace pacml::cli {

// Declares --graph, --model and the zoo options on `args`.
void add_graph_options(Args& args);

// Loads the graph the options name; throws InputError if neither or both
// are given, or the file/model is bad. `positional` may name a file instead.
JobGraphPtr load_job_graph(const Args& args, const std::string& positional = "");

}  // namespace pacml::cli
