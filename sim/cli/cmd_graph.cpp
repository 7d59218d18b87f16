// `pacml graph` — inspect, list, export and calibrate job graphs.
//   pacml graph info FILE | --graph FILE | --model NAME [--json]
//   pacml graph zoo [--json]
//   pacml graph export --model NAME [--format native|pipedream] [--output FILE]
//   pacml graph calibrate [--dir DIR] [--device FILE]
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/cluster/cluster_spec.h"
#include "core/graph/job_graph.h"
#include "core/graph/native_graph.h"
#include "core/profile.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/zoo/model_zoo.h"
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
  std::string file;
  GraphOptions graph;
  long steps = 50;
  std::string profile_name = "reference";
  bool json = false;
  args.bind_positional("FILE", "graph file (same as --graph)", file, false);
  add_graph_options(args, graph);
  args.bind("steps", "N", "training steps N for JCT_seq", steps, 1, 1'000'000'000);
  args.bind_choice("profile", {"reference", "physical"},
                   "reference (ms) or physical (s): the unit of jct_seq", profile_name);
  args.bind_flag("json", "print one JSON object", json);
  if (!args.parse(argv)) return 0;
  LoadedGraph loaded = load_layer_graph(graph, file);
  const std::optional<double> params = loaded.params;
  const std::string configuration = loaded.configuration;
  const auto job = make_job_graph(std::move(loaded.graph));
  const Profile profile = Profile::by_name(profile_name);
  const GraphSummary s = summarise(*job, static_cast<int>(steps), profile);
  if (json) {
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
    if (params) out["params"] = *params;
    if (!configuration.empty()) out["configuration"] = configuration;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  Table table({"property", "value"});
  table.add({"model", job->name()});
  table.add({"layers (forward ops)", std::to_string(s.ops)});
  table.add({"edges", std::to_string(s.edges)});
  table.add({"training-step ops / edges",
             std::to_string(s.step_ops) + " / " + std::to_string(s.step_edges)});
  table.add({"forward / backward time (ms)", significant_number_text(s.forward_time) + " / " +
                                                 significant_number_text(s.backward_time)});
  table.add({"JCT_seq (" + std::to_string(steps) + " steps, " + profile.time_unit + ")",
             significant_number_text(s.jct_seq, 10)});
  table.add({"parameter bytes", significant_number_text(s.param_bytes, 10)});
  table.add({"activation bytes", significant_number_text(s.activation_bytes, 10)});
  if (params) table.add({"parameters", significant_number_text(*params, 6)});
  if (!configuration.empty()) table.add({"zoo configuration", configuration});
  table.print(std::cout);
  return 0;
}

// "+0.04 %", "-1.1 %".
std::string signed_percent(double fraction) {
  const std::string text = significant_number_text(100 * fraction, 2);
  return (fraction >= 0 ? "+" : "") + text + " %";
}

int graph_zoo(const std::vector<std::string>& argv) {
  Args args("pacml graph zoo [--json]",
            "Lists the built-in model zoo: training-step graphs generated from architecture\n"
            "definitions with an analytic cost model (see core/zoo/README.md).");
  bool json = false;
  args.bind_flag("json", "print one JSON array", json);
  if (!args.parse(argv)) return 0;
  nlohmann::json list = nlohmann::json::array();
  Table table({"model", "aliases", "family", "batch", "seq/image", "params", "published",
               "vs published", "description"});
  for (const ZooModelInfo& m : list_zoo_models()) {
    std::string aliases;
    for (const std::string& a : m.aliases) aliases += (aliases.empty() ? "" : ",") + a;
    const int shape = m.default_seq_len ? m.default_seq_len : m.default_image_size;
    // The count the zoo builds at the model's defaults, against the source's.
    const double params = build_zoo_model(m.name).params;
    const bool published = m.reference_params > 0;
    table.add({m.name, aliases, m.family, std::to_string(m.default_batch), std::to_string(shape),
               significant_number_text(params / 1e6, 5) + " M",
               published ? significant_number_text(m.reference_params / 1e6, 5) + " M" : "-",
               published ? signed_percent(params / m.reference_params - 1) : "-", m.description});
    list.push_back({{"model", m.name},
                    {"params", params},
                    {"aliases", m.aliases},
                    {"family", m.family},
                    {"default_batch", m.default_batch},
                    {"default_seq_len", m.default_seq_len},
                    {"default_image_size", m.default_image_size},
                    {"published_params", m.reference_params},
                    {"description", m.description}});
  }
  if (json) {
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  table.print(std::cout);
  return 0;
}

int graph_export(const std::vector<std::string>& argv) {
  Args args(
      "pacml graph export (--model NAME | --graph FILE) [--format native|pipedream] [--output "
      "FILE]",
      "Writes a graph file: a zoo model (or a converted graph file) in pacml's native YAML\n"
      "format or as a PipeDream graph.txt, to --output or standard output.");
  GraphOptions graph;
  std::string format = "native";
  std::optional<std::string> output;
  add_graph_options(args, graph);
  args.bind_choice("format", {"native", "pipedream"}, "native or pipedream", format);
  args.bind("output", "FILE", "write here instead of standard output", output);
  if (!args.parse(argv)) return 0;
  const LoadedGraph loaded = load_layer_graph(graph);
  std::ofstream file;
  if (output) {
    file.open(*output);
    if (!file) throw InputError("--output", "cannot write '" + *output + "'");
  }
  std::ostream& out = output ? file : std::cout;
  if (format == "native")
    write_native_graph(loaded.graph, out);
  else
    write_pipedream_graph(loaded.graph, out);
  out.flush();
  if (!out) throw InputError("--output", "write failed");
  return 0;
}

std::string default_profile_dir() {
  if (const char* data = std::getenv("PACML_SHARED_DATA")) return std::string(data) + "/pipedream";
  return "../shared/data/pipedream";
}

int graph_calibrate(const std::vector<std::string>& argv) {
  Args args("pacml graph calibrate [--dir DIR] [--device NAME|FILE]",
            "Compares each zoo model with its PipeDream profile (at the profile's batch size):\n"
            "op count, parameter and activation bytes, total forward and backward time.");
  std::string dir = default_profile_dir();
  std::optional<std::string> device_name;
  args.bind("dir", "DIR", "folder of PipeDream profiles", dir);
  args.bind("device", "NAME|FILE",
            "a built-in GPU (contrib/devices) or a device file (default: a100)", device_name);
  if (!args.parse(argv)) return 0;
  const DeviceModel device =
      device_name ? load_device(*device_name, "--device") : DeviceModel::a100();
  const auto rows = calibration_report(dir, device);
  if (rows.empty()) throw InputError("--dir", "no PipeDream profiles found in '" + dir + "'");
  std::cout << format_calibration_table(rows);
  return 0;
}

int graph_command(const std::vector<std::string>& argv) {
  static const VerbTable verbs = {
      {"info", {graph_info, "summarise a graph (ops, edges, JCT_seq, memory)"}},
      {"zoo", {graph_zoo, "list the built-in model zoo"}},
      {"export", {graph_export, "write a zoo model or graph as native YAML or PipeDream"}},
      {"calibrate", {graph_calibrate, "compare zoo models with PipeDream profiles"}},
  };
  return run_verb("graph", "Job graphs: the zoo's models, files and PipeDream profiles.", verbs,
                  argv);
}

}  // namespace

PACML_COMMAND("graph", "inspect, list and export job graphs", graph_command);

}  // namespace pacml::cli
