// What a job asks of pacml: its graph or zoo model, training steps and its
// requirement. Read from the SPANK options (--pacml-*), which reach
// slurmctld in the job's SPANK environment, or from the --comment=pacml:…
// fallback for sites without the SPANK plugin. The syntax of both is
// core/slurm/slurm_syntax.h's, shared with the trace readers.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pacml::plugin {

struct JobRequest {
  bool wants_pacml = false;  // any pacml option was given
  std::string graph;         // --pacml-graph / pacml:graph=
  std::string model;         // --pacml-model / pacml:model=
  // --pacml-steps / --pacml-iterations: the job states its length, so its
  // time limit may come from the prediction (see plugin/README.md).
  std::optional<long> steps;
  std::optional<std::string> deadline;  // raw text, parsed against the submit time
  std::optional<double> beta;
  std::string origin;  // "spank" or "comment" (for the log)
  // The user's graph as the SPANK plugin read it in sbatch/salloc/srun
  // (PACML_GRAPH_DATA, plugin/compact_graph.h), or why it could not
  // (PACML_GRAPH_ERROR); slurmctld never opens the path itself.
  std::string graph_compact;
  std::string graph_error;
};

// The SPANK environment entries the options arrive as. The SPANK plugin may
// also set PACML_GRAPH (an absolute path resolved in the user's working
// directory), which takes precedence over the raw option, and
// PACML_GRAPH_DATA or PACML_GRAPH_ERROR (the graph it read, or why not).
constexpr const char* kSpankOptionPrefix = "_SLURM_SPANK_OPTION_pacml_pacml_";

// Reads the request; throws InputError("--pacml-X" or "--comment …", ...) for
// malformed values (steps not a positive integer, β outside (0, 1], unknown
// comment keys, both graph and model).
JobRequest extract_request(const std::vector<std::string>& spank_env, const std::string& comment);

}  // namespace pacml::plugin
