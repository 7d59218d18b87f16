// Graph text to a LayerGraph with the site's limits: the one parse both
// sides use. The SPANK plugin runs it in sbatch/salloc/srun, as the user, on
// the user's file; job_submit/pacml runs it in slurmctld on admin graph_dirs
// files and on the compact form the SPANK plugin sent (plugin/compact_graph.h).
//
// Cost bounds (plugin/README.md, "Cost bounds"): text at most max_bytes,
// at most max_ops layers and max_edges edges (12 k edges in 343 KB took
// 10.8 s to decide), so one submission's parse and decision are bounded.
// Messages name the path and the line at fault, never the text's values.
#pragma once

#include <string>

#include "core/graph/layer_graph.h"

namespace pacml::plugin {

struct GraphLimits {
  long max_bytes = 512L << 10;  // max_graph_bytes
  long max_ops = 2000;          // max_graph_ops: layers (forward ops)
  long max_edges = 4000;        // max_graph_edges: edges between them
};

// Whether graph text is read as a native (YAML) graph: by the path's
// extension, else by its first line ("pacml_graph: 1"); PipeDream otherwise.
bool is_native_graph(const std::string& text, const std::string& path);

// Parses and validates graph text; throws InputError(path or path:line, …)
// that keeps only the location (the file could hold anything), except for
// shape problems (a cycle names its layers), and the limits by name.
LayerGraph parse_graph_text(const std::string& text, const std::string& path, bool native,
                            const GraphLimits& limits);

// The layer and edge limits alone (parse_graph_text applies them too).
void check_graph_limits(const LayerGraph& g, const std::string& path, const GraphLimits& limits);

}  // namespace pacml::plugin
