// Loading a graph file whatever its format.
#pragma once

#include <string>

#include "core/graph/layer_graph.h"

namespace pacml {

enum class GraphFormat { kPipeDream, kNative };

// Guesses the format from the extension (.yaml/.yml = native) and, failing
// that, from the first non-blank line ("pacml_graph:" = native).
GraphFormat detect_graph_format(const std::string& path);

// Reads a PipeDream or native graph file, validated. Throws InputError.
LayerGraph load_graph_file(const std::string& path);

// "…/resnet18.txt" -> "resnet18".
std::string model_name_from_path(const std::string& path);

}  // namespace pacml
