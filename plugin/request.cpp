#include "plugin/request.h"

#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::plugin {
namespace {

void set_value(JobRequest& r, const std::string& key, const std::string& value,
               const std::string& where) {
  if (key == "graph") {
    if (value.empty()) throw InputError(where, "the graph file name is empty");
    r.graph = value;
  } else if (key == "model") {
    if (value.empty()) throw InputError(where, "the model name is empty");
    r.model = value;
  } else if (key == "steps") {
    r.steps = parse_integer(value, 1, 1000000000, where, "steps");
  } else if (key == "deadline") {
    r.deadline = value;
  } else if (key == "beta") {
    const double b = parse_finite_double(value, where, "beta");
    if (!(b > 0 && b <= 1)) throw InputError(where, "beta must be in (0, 1], got " + value);
    r.beta = b;
  } else {
    throw InputError(
        where, "unknown pacml option '" + key + "' (known: graph, model, steps, deadline, beta)");
  }
  r.wants_pacml = true;
}

}  // namespace

void parse_comment_request(const std::string& comment, JobRequest& request) {
  std::string text = comment;
  for (char& c : text)
    if (c == ';') c = ' ';
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (word.rfind("pacml:", 0) != 0) continue;
    request.wants_pacml = true;
    request.origin = "comment";
    std::istringstream pairs(word.substr(6));
    std::string pair;
    while (std::getline(pairs, pair, ',')) {
      if (pair.empty()) continue;
      const size_t eq = pair.find('=');
      if (eq == std::string::npos)
        throw InputError("--comment", "'" + pair + "' is not key=value (e.g. pacml:model=gnmt)");
      set_value(request, pair.substr(0, eq), pair.substr(eq + 1),
                "--comment pacml:" + pair.substr(0, eq));
    }
  }
}

JobRequest extract_request(const std::vector<std::string>& spank_env, const std::string& comment) {
  JobRequest r;
  const std::string prefix = kSpankOptionPrefix;
  std::string resolved_graph;
  for (const std::string& entry : spank_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (name.rfind(prefix, 0) == 0) {
      const std::string key = name.substr(prefix.size());
      set_value(r, key, value, "--pacml-" + key);
      r.origin = "spank";
    } else if (name == "PACML_GRAPH") {
      resolved_graph = value;
    }
  }
  if (!resolved_graph.empty() && !r.graph.empty()) r.graph = resolved_graph;
  if (!r.wants_pacml) parse_comment_request(comment, r);
  if (!r.graph.empty() && !r.model.empty())
    throw InputError("--pacml-graph", "give either a graph file or a model name, not both");
  return r;
}

}  // namespace pacml::plugin
