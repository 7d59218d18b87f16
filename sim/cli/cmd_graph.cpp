// `pacml graph` — inspect and convert job graphs.
//   pacml graph info FILE | --graph FILE | --model NAME [--json]
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/graph/job_graph.h"
#include "core/profile.h"
#include "core/util/error.h"
#include "sim/cli/args.h"
#include "sim/cli/command.h"
#include "sim/cli/graph_source.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

struct GraphSummary {
  int ops = 0, edges = 0, step_ops = 0, step_edges = 0;
  double jct_seq = 0, param_bytes = 0, activation_bytes = 0, forward_time = 0, backward_time = 0;
};

GraphSummary summarise(const JobGraph& job, int steps, const Profile& profile) {
  GraphSummary s;
  s.ops = job.layers().num_layers();
  s.edges = job.layers().num_edges();
  s.step_ops = job.step().num_ops();
  s.step_edges = job.step().num_deps();
  s.jct_seq = job.step().sequential_jct(steps) * profile.compute_scale;
  for (const Layer& l : job.layers().layers) {
    s.param_bytes += l.parameter_bytes;
    s.activation_bytes += l.activation_bytes;
    s.forward_time += l.forward_time;
    s.backward_time += l.backward_time;
  }
  return s;
}

int graph_info(const std::vector<std::string>& argv) {
  Args args("pacml graph info [FILE | --graph FILE] [--json]",
            "Summarises a job graph: layers (forward ops), edges, the training-step graph,\n"
            "sequential JCT (JCT_seq = N x step compute), parameter and activation bytes.");
  args.positional("FILE", "graph file (same as --graph)", false);
  add_graph_options(args);
  args.option("steps", "N", "training steps N for JCT_seq", "50");
  args.option("profile", "NAME", "reference (ms) or physical (s): the unit of jct_seq",
              "reference");
  args.flag("json", "print one JSON object");
  if (!args.parse(argv)) return 0;
  const auto job = load_job_graph(args, args.positionals().empty() ? "" : args.positionals()[0]);
  const int steps = static_cast<int>(args.get_long("steps", 1, 1'000'000'000));
  const Profile profile = Profile::by_name(args.get("profile"));
  const GraphSummary s = summarise(*job, steps, profile);
  if (args.is_set("json")) {
    nlohmann::json out = {{"model", job->name()},
                          {"ops", s.ops},
                          {"edges", s.edges},
                          {"step_ops", s.step_ops},
                          {"step_edges", s.step_edges},
                          {"steps", steps},
                          {"profile", profile.name},
                          {"time_unit", profile.time_unit},
                          {"jct_seq", s.jct_seq},
                          {"forward_ms", s.forward_time},
                          {"backward_ms", s.backward_time},
                          {"param_bytes", s.param_bytes},
                          {"activation_bytes", s.activation_bytes},
                          {"memory_bytes", s.param_bytes + s.activation_bytes}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  Table table({"property", "value"});
  table.add({"model", job->name()});
  table.add({"layers (forward ops)", std::to_string(s.ops)});
  table.add({"edges", std::to_string(s.edges)});
  table.add({"training-step ops / edges",
             std::to_string(s.step_ops) + " / " + std::to_string(s.step_edges)});
  table.add({"forward / backward time (ms)",
             format_number(s.forward_time) + " / " + format_number(s.backward_time)});
  table.add({"JCT_seq (" + std::to_string(steps) + " steps, " + profile.time_unit + ")",
             format_number(s.jct_seq, 10)});
  table.add({"parameter bytes", format_number(s.param_bytes, 10)});
  table.add({"activation bytes", format_number(s.activation_bytes, 10)});
  table.print(std::cout);
  return 0;
}

const std::map<std::string, std::pair<CommandFn, const char*>>& verbs() {
  static const std::map<std::string, std::pair<CommandFn, const char*>> table = {
      {"info", {graph_info, "summarise a graph (ops, edges, JCT_seq, memory)"}},
  };
  return table;
}

int graph_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::cout << "usage: pacml graph <verb> [options]\n\nverbs:\n";
    for (const auto& [name, verb] : verbs())
      std::cout << "  " << name << "  " << verb.second << "\n";
    std::cout << "\n'pacml graph <verb> --help' describes a verb.\n";
    return argv.empty() ? 2 : 0;
  }
  auto it = verbs().find(argv[0]);
  if (it == verbs().end())
    throw InputError("pacml graph", "unknown verb '" + argv[0] + "' (see --help)");
  return it->second.first(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace

PACML_COMMAND("graph", "inspect, list and export job graphs", graph_command);

}  // namespace pacml::cli
