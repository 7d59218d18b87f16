// Reader for PipeDream profiler output (graph.txt), doc/MODEL.md §1.1.
#pragma once

#include <istream>
#include <string>

#include "core/graph/layer_graph.h"

namespace pacml {

// Reads a PipeDream graph.txt. `source` names the input in error messages
// (usually the path). Throws InputError with "source:line" on any malformed
// line: missing or non-numeric field, unknown node in an edge, duplicate id,
// cycle, empty input. List-valued fields ("[a; b; c]") are summed.
LayerGraph read_pipedream(std::istream& in, const std::string& source);

// Opens and reads a file; the model name is the file name without ".txt".
LayerGraph read_pipedream_file(const std::string& path);

}  // namespace pacml
