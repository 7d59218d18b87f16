// `pacml bench` — how fast the JCT estimator is: for each paper graph at one
// action, the time to partition + place + time dependencies, and the time of
// the one-step lookahead alone (median of repeated single-threaded runs).
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cluster/cluster_state.h"
#include "core/comm/dependency_times.h"
#include "core/graph/graph_files.h"
#include "core/graph/job_graph.h"
#include "core/jct/lookahead.h"
#include "core/partition/split_counts.h"
#include "core/placement/first_fit.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/cli/cpu_timer.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

std::string default_graph_dir() {
  if (const char* data = std::getenv("PACML_SHARED_DATA")) return std::string(data) + "/pipedream";
  return "../shared/data/pipedream";
}

struct BenchRow {
  std::string model;
  int ops = 0, deps = 0;
  long ticks = 0;
  double prepare_ms = 0, lookahead_ms = 0;
};

BenchRow bench_graph(const std::string& path, int action, int repeats, const Profile& profile) {
  const JobGraph job(load_graph_file(path));
  const RampTopology topology = RampTopology::parse("4x4x2");
  const ClusterState cluster(topology);
  BenchRow row;
  row.model = job.name();
  const auto splits = split_counts(job.layers(), action, profile.quantum);
  row.prepare_ms = median_ms(repeats, [&] {
    PartitionedGraph graph(job.step(), splits, profile.edge_sizes);
    Placement placement = place_first_fit(graph, cluster);
    dependency_times(graph, placement, topology);
  });
  PartitionedGraph graph(job.step(), splits, profile.edge_sizes);
  const Placement placement = place_first_fit(graph, cluster);
  if (!placement.placed)
    throw InputError(path, "cannot be placed at action " + std::to_string(action));
  const std::vector<double> times = dependency_times(graph, placement, topology);
  row.ops = graph.num_ops();
  row.deps = graph.num_deps();
  row.lookahead_ms = median_ms(repeats, [&] {
    row.ticks = simulate_step(graph, placement, times, profile.compute_scale).ticks;
  });
  return row;
}

int bench_command(const std::vector<std::string>& argv) {
  Args args("pacml bench [--dir DIR] [--action A] [--repeats R] [--json]",
            "Benchmarks the JCT estimator on the five PAC-ML paper graphs (PipeDream profiles):\n"
            "median single-threaded CPU time of partition+placement+dependency timing, and of\n"
            "the one-step lookahead alone, on an empty 4x4x2 RAMP cluster.");
  std::string dir = default_graph_dir(), profile_name = "reference";
  int action = 16, repeats = 21;
  bool json = false;
  args.bind("dir", "DIR",
            "folder with alexnet.txt, resnet18.txt, ... ($PACML_SHARED_DATA/pipedream)", dir);
  args.bind("action", "A", "action to partition with", action, 1, kMaxAction);
  args.bind("repeats", "R", "runs per graph (median reported)", repeats, 1, 100000);
  args.bind_choice("profile", {"reference", "physical"}, "reference or physical", profile_name);
  args.bind_flag("json", "print one JSON array", json);
  if (!args.parse(argv)) return 0;
  check_action(action, kMaxAction, "--action");
  const Profile profile = Profile::by_name(profile_name);
  if (!std::filesystem::is_directory(dir))
    throw InputError("--dir", "no such folder '" + dir +
                                  "' (the PipeDream profiles live in ../shared/data/pipedream)");
  nlohmann::json rows = nlohmann::json::array();
  Table table({"graph", "sub-ops", "sub-deps", "ticks", "prepare ms", "lookahead ms"});
  for (const char* model : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt"}) {
    const BenchRow r = bench_graph(dir + "/" + model + ".txt", action, repeats, profile);
    table.add({r.model, std::to_string(r.ops), std::to_string(r.deps), std::to_string(r.ticks),
               significant_number_text(r.prepare_ms, 3),
               significant_number_text(r.lookahead_ms, 3)});
    rows.push_back({{"graph", r.model},
                    {"action", action},
                    {"ops", r.ops},
                    {"deps", r.deps},
                    {"ticks", r.ticks},
                    {"prepare_ms", r.prepare_ms},
                    {"lookahead_ms", r.lookahead_ms}});
  }
  if (json) {
    std::cout << rows.dump(2) << "\n";
    return 0;
  }
  std::cout << "JCT estimator, action " << action << ", profile " << profile.name << ", median of "
            << repeats << " single-threaded runs (CPU time)\n";
  table.print(std::cout);
  return 0;
}

}  // namespace

PACML_COMMAND("bench", "benchmark the JCT estimator on the paper graphs", bench_command);

}  // namespace pacml::cli
