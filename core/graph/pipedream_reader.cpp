#include "core/graph/pipedream_reader.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {
namespace {

constexpr std::string_view kSeparator = " -- ";

std::vector<std::string_view> split_on_separator(std::string_view line) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    size_t pos = line.find(kSeparator, start);
    if (pos == std::string_view::npos) {
      pieces.push_back(line.substr(start));
      return pieces;
    }
    pieces.push_back(line.substr(start, pos - start));
    start = pos + kSeparator.size();
  }
}

// A value is a number or a bracketed list "[a; b; c]" whose sum is used
// (GNMT's LSTM layers report several activation tensors).
double parse_profile_value(std::string_view text, const std::string& where,
                           const std::string& key) {
  text = trim(text);
  if (!text.empty() && text.front() == '[') {
    if (text.back() != ']') throw InputError(where, key + ": list is missing its closing ']'");
    std::string_view body = text.substr(1, text.size() - 2);
    double sum = 0;
    size_t start = 0;
    while (start <= body.size()) {
      size_t pos = body.find(';', start);
      std::string_view item =
          body.substr(start, pos == std::string_view::npos ? body.npos : pos - start);
      sum += parse_non_negative(item, where, key + " list entry");
      if (pos == std::string_view::npos) break;
      start = pos + 1;
    }
    return sum;
  }
  return parse_non_negative(text, where, key);
}

// Parses "forward_compute_time=F, backward_compute_time=B, ..." by key.
// Commas inside brackets belong to the list, so split on top-level commas only.
void parse_fields(std::string_view text, const std::string& where, Layer& layer) {
  std::map<std::string, double*> targets = {{"forward_compute_time", &layer.forward_time},
                                            {"backward_compute_time", &layer.backward_time},
                                            {"activation_size", &layer.activation_bytes},
                                            {"parameter_size", &layer.parameter_bytes}};
  std::map<std::string, bool> found;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c != ',' || depth > 0) continue;
    std::string_view field = trim(text.substr(start, i - start));
    start = i + 1;
    if (field.empty()) continue;
    size_t eq = field.find('=');
    if (eq == std::string_view::npos)
      throw InputError(where, "field without '=': '" + std::string(field.substr(0, 60)) + "'");
    std::string key(trim(field.substr(0, eq)));
    auto target = targets.find(key);
    if (target == targets.end()) continue;  // unknown keys are tolerated (newer profilers add some)
    if (found[key]) throw InputError(where, "field '" + key + "' given twice");
    found[key] = true;
    *target->second = parse_profile_value(field.substr(eq + 1), where, key);
  }
  for (const auto& [key, ptr] : targets)
    if (!found[key]) throw InputError(where, "missing field '" + key + "'");
}

struct PendingEdge {
  std::string src, dst;
  long line;
};

// PipeDream ids are "node<number>"; the join edge starts at the largest number.
long numeric_id(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || name.size() - i > 9) return -1;
  return std::stol(name.substr(i));
}

// The file:line of the edge that closes a cycle "a -> b -> … -> a" (its
// last step), so that the user sees where to look.
std::string closing_edge_where(const std::string& cycle, const std::vector<PendingEdge>& edges,
                               const std::string& source) {
  const std::string arrow = " -> ";
  const size_t last = cycle.rfind(arrow);
  if (last == std::string::npos || last == 0) return source;
  const size_t before = cycle.rfind(arrow, last - 1);
  const size_t from = before == std::string::npos ? 0 : before + arrow.size();
  const std::string src = cycle.substr(from, last - from), dst = cycle.substr(last + arrow.size());
  for (const PendingEdge& e : edges)
    if (e.src == src && e.dst == dst) return file_line(source, e.line);
  return source;
}

}  // namespace

LayerGraph read_pipedream(std::istream& in, const std::string& source) {
  LayerGraph graph;
  graph.model_name = model_name_from_path(source);
  std::map<std::string, int> index;
  std::vector<PendingEdge> pending;
  std::string line;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = file_line(source, line_no);
    if (line.size() > 1'000'000) throw InputError(where, "line is too long");
    if (trim(line).empty()) continue;
    auto pieces = split_on_separator(line);
    if (pieces.size() >= 3) {
      Layer layer;
      layer.name = std::string(trim(pieces[0]));
      if (layer.name.empty()) throw InputError(where, "node line without a node id");
      for (size_t i = 1; i + 1 < pieces.size(); ++i) {
        if (i > 1) layer.label += std::string(kSeparator);
        layer.label += std::string(trim(pieces[i]));
      }
      parse_fields(pieces.back(), where, layer);
      if (!index.emplace(layer.name, graph.num_layers()).second)
        throw InputError(where, "duplicate node id '" + layer.name + "'");
      graph.layers.push_back(std::move(layer));
    } else if (pieces.size() == 2) {
      PendingEdge edge{std::string(trim(pieces[0])), std::string(trim(pieces[1])), line_no};
      if (edge.src.empty() || edge.dst.empty()) throw InputError(where, "edge with an empty end");
      pending.push_back(std::move(edge));
    } else {
      throw InputError(where,
                       "neither a node line ('id -- layer -- fields') nor an edge ('u -- v')");
    }
  }
  if (in.bad()) throw InputError(source, "read error");
  if (graph.layers.empty())
    throw InputError(source, "no nodes found (empty or not a PipeDream graph)");
  std::set<std::pair<int, int>> seen;
  for (const PendingEdge& e : pending) {
    const std::string where = file_line(source, e.line);
    auto src = index.find(e.src), dst = index.find(e.dst);
    if (src == index.end()) throw InputError(where, "edge from unknown node '" + e.src + "'");
    if (dst == index.end()) throw InputError(where, "edge to unknown node '" + e.dst + "'");
    if (src->second == dst->second) throw InputError(where, "self loop on '" + e.src + "'");
    if (!seen.insert({src->second, dst->second}).second)
      throw InputError(where, "duplicate edge " + e.src + " -- " + e.dst);
    graph.edges.push_back({src->second, dst->second});
  }
  // The join edge leaves the node with the largest numeric id (doc/MODEL.md §1.2);
  // ids without a number fall back to the last node defined.
  long best = LONG_MIN;
  for (int i = 0; i < graph.num_layers(); ++i) {
    long id = numeric_id(graph.layers[i].name);
    if (id >= best) best = id, graph.output_layer = i;
  }
  if (const std::string cycle = find_cycle(graph); !cycle.empty())
    throw InputError(closing_edge_where(cycle, pending, source), "graph has a cycle: " + cycle);
  graph.validate(source);
  return graph;
}

LayerGraph read_pipedream_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  return read_pipedream(in, path);
}

}  // namespace pacml
