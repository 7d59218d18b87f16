// The compact form of a user's graph: what the SPANK plugin, having read and
// validated the user's file as the user (in sbatch, salloc or srun), hands
// slurmctld through the job's control environment (spank_job_control_setenv;
// job_submit/pacml finds it in job_desc->spank_job_env), so that slurmctld
// never opens a user's path (plugin/README.md, "Security").
//
//   PACML_GRAPH_DATA_0, _1, …: pieces of "pacml-graph/1 BYTES DIGEST NAME\nPAYLOAD"
//
// in pieces of at most 64 KiB, because Slurm's clients refuse an
// environment variable of 128 KiB or more (MAX_ENV_STRLEN).
// PAYLOAD is the parsed graph written again as a PipeDream graph.txt
// (write_pipedream_graph) with every label replaced by "op": numbers and
// node ids only, whatever the user's file was (PipeDream or YAML), so that
// slurmctld parses no YAML and no free text of the user's. BYTES is its
// length, DIGEST its FNV-1a 64 in 16 hex digits (detects a truncated or
// damaged form; the user may send any form, the graph being the user's own
// claim about the job), NAME the model's name in [A-Za-z0-9._+-].
//
// The decoder's cost is bounded before any parse: the form at most
// max_graph_bytes plus its header, printable ASCII only, and its node and
// edge lines counted against max_graph_ops and max_graph_edges. slurmctld
// then parses PAYLOAD with plugin/graph_text.h's limits like any graph.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/graph/layer_graph.h"
#include "plugin/graph_text.h"

namespace pacml::plugin {

// The job control environment's names (no "SPANK_" prefix: Slurm adds it
// only for the prolog's and epilog's copies); the pieces are named
// kGraphDataVar + "_" + 0, 1, ….
constexpr const char* kGraphDataVar = "PACML_GRAPH_DATA";
constexpr size_t kGraphDataPiece = 64u << 10;
constexpr size_t kMaxGraphDataPieces = 512;  // 32 MiB: above any max_graph_bytes
// Set instead by a SPANK plugin that could not read or validate the file:
// its message, which job_submit/pacml refuses the job with.
constexpr const char* kGraphErrorVar = "PACML_GRAPH_ERROR";
constexpr const char* kCompactMagic = "pacml-graph/1";
constexpr size_t kMaxCompactHeader = 256;  // magic, bytes, digest and name
constexpr size_t kMaxCompactName = 128;
constexpr size_t kMaxGraphErrorBytes = 1024;

struct CompactGraph {
  std::string name;     // the model's name
  std::string payload;  // PipeDream text
};

// The compact form of a validated graph (the value of PACML_GRAPH_DATA).
std::string encode_compact_graph(const LayerGraph& graph);

// The form in pieces: (name, value) for the job control environment.
std::vector<std::pair<std::string, std::string>> compact_graph_variables(const std::string& form);
// The piece number of a variable's name, or -1 if it is not one.
long compact_graph_piece(const std::string& name);

// Checks a compact form's frame (see above) against `limits`; throws
// InputError(kGraphDataVar[ + ": byte N"], reason) naming what is wrong.
// The payload is not parsed here (parse_graph_text does it).
CompactGraph decode_compact_graph(const std::string& value, const GraphLimits& limits);

// decode_compact_graph, then the payload parsed and validated with the
// limits; `path` names the graph in messages.
LayerGraph parse_compact_graph(const std::string& value, const std::string& path,
                               const GraphLimits& limits);

}  // namespace pacml::plugin
