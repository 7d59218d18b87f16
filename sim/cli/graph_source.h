// Where a command's job graph comes from: --graph FILE (PipeDream graph.txt or
// native YAML) or --model NAME (the built-in model zoo, with --batch etc.).
#pragma once

#include <optional>
#include <string>

#include "core/graph/job_graph.h"
#include "core/util/args.h"
#include "core/zoo/model_zoo.h"

namespace pacml::cli {

// The graph options as the command line gives them; CLI11 fills the members
// (add_graph_options), the loaders below read nothing else.
struct GraphOptions {
  std::optional<std::string> graph;  // --graph FILE
  std::optional<std::string> model;  // --model NAME
  // The zoo's shape options, bound to ZooOptions' members; attention and the
  // device are applied by zoo_options() (they must be known as given).
  ZooOptions zoo;
  std::optional<Attention> attention;  // --attention sdpa|eager
  std::optional<std::string> device;   // --device NAME|FILE
};

// Declares --graph, --model and the zoo options (--batch, --seq-len,
// --image-size, --layers, --hidden, --heads, --kv-heads, --ffn-hidden, --vocab,
// --tied-embeddings, --attention, --precision, --device) on `args`, bound to `options`.
void add_graph_options(Args& args, GraphOptions& options);

// The zoo options the command line gives (the device file loaded).
ZooOptions zoo_options(const GraphOptions& options);

// Refuses the zoo-only options for a job read from a graph file ("--seq-len:
// applies to --model only"); --batch too unless `batch_applies`.
void reject_zoo_options(const GraphOptions& options, bool batch_applies);

struct LoadedGraph {
  LayerGraph graph;
  std::optional<double> params;  // parameter count, known for zoo models
  std::string configuration;     // zoo models: ZooGraph::configuration
};

// Loads the graph the options name (or `positional`, a file); throws
// InputError if none or both of --graph/--model are given, or the input is bad.
LoadedGraph load_layer_graph(const GraphOptions& options, const std::string& positional = "");
JobGraphPtr load_job_graph(const GraphOptions& options, const std::string& positional = "");

}  // namespace pacml::cli
