// Where a command's job graph comes from: --graph FILE (PipeDream graph.txt or
// native YAML) or --model NAME (the built-in model zoo, with --batch etc.).
#pragma once

#include <optional>
#include <string>

#include "core/graph/job_graph.h"
#include "core/util/args.h"
#include "core/zoo/model_zoo.h"

namespace pacml::cli {

// Declares --graph, --model and the zoo options (--batch, --seq-len,
// --image-size, --layers, --hidden, --heads, --kv-heads, --ffn-hidden, --vocab,
// --tied-embeddings, --attention, --precision, --device) on `args`.
void add_graph_options(Args& args);

// The zoo options the command line gives.
ZooOptions zoo_options(const Args& args);

// Refuses the zoo-only options for a job read from a graph file ("--seq-len:
// applies to --model only"); --batch too unless `batch_applies`.
void reject_zoo_options(const Args& args, bool batch_applies);

struct LoadedGraph {
  LayerGraph graph;
  std::optional<double> params;  // parameter count, known for zoo models
  std::string configuration;     // zoo models: ZooGraph::configuration
};

// Loads the graph the options name (or `positional`, a file); throws
// InputError if none or both of --graph/--model are given, or the input is bad.
LoadedGraph load_layer_graph(const Args& args, const std::string& positional = "");
JobGraphPtr load_job_graph(const Args& args, const std::string& positional = "");

}  // namespace pacml::cli
