// `pacml train` — runs the LibTorch trainer, a separate program (pacml-train,
// built with LibTorch next to pacml), so that the pacml binary itself never
// loads LibTorch. `pacml bench-policy` times the learned policy's LibTorch-free
// inference, the path the Slurm plugin takes.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/cluster/cluster_state.h"
#include "core/features/features.h"
#include "core/inference/learned_policy.h"
#include "core/placement/action_mask.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/cli/cpu_timer.h"
#include "sim/cli/table.h"
#include "sim/engine/policy_factory.h"
#include "sim/workload/graph_catalog.h"
#include "sim/workload/paths.h"

namespace pacml::cli {
namespace {

int run_train(const std::vector<std::string>& args) {
  std::vector<std::string> candidates = {sim::executable_dir() + "/pacml-train"};
  const std::string* chosen = nullptr;
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) chosen = &c;
  std::vector<char*> argv;
  std::string prog = chosen ? *chosen : "pacml-train";
  argv.push_back(prog.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (chosen)
    ::execv(chosen->c_str(), argv.data());
  else
    ::execvp("pacml-train", argv.data());
  throw InputError("pacml train",
                   std::string("cannot run pacml-train (") + std::strerror(errno) +
                       "): this pacml was built without LibTorch (configure found no "
                       "libtorch-dev) or pacml-train is not installed next to pacml");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// --graphs, else the PipeDream graphs in ../shared/data, else zoo models of the same names.
std::vector<JobGraphPtr> bench_graphs(const std::optional<std::string>& graph_list,
                                      sim::GraphCatalog& catalog) {
  std::vector<std::string> names;
  if (graph_list) {
    names = sim::split_policy_list(*graph_list, "--graphs");
  } else {
    const std::string dir =
        sim::expand_variables(
            "${PACML_SHARED_DATA:-" + sim::executable_dir() + "/../../shared/data}", "--graphs") +
        "/pipedream/";
    for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt", "resnet50"})
      names.push_back(::access((dir + m + ".txt").c_str(), R_OK) == 0 ? dir + m + ".txt"
                                                                      : std::string(m));
  }
  std::vector<JobGraphPtr> graphs;
  for (const auto& n : names)
    graphs.push_back(sim::looks_like_path(n) ? catalog.load_file(n) : catalog.zoo(n, "--graphs"));
  return graphs;
}

int run_bench_policy(const std::vector<std::string>& args) {
  Args a("pacml bench-policy [--weights PATH] [--graphs LIST] [--repeats N]",
         "Times the learned policy's decision without LibTorch, single-threaded, on an empty "
         "cluster, in two parts. Network (Eigen): 'cold' = a graph never seen before (node/edge "
         "features, message passing, graph inputs, heads: the Slurm plugin's path for a new "
         "job), 'warm' = the graph's embedding cached (the simulator's path). Feasible actions "
         "(one JCT estimate per valid action): 'cold' without a lookahead cache, 'cached' with "
         "it warm (the steady state of the simulator and the plugin). Median CPU time.");
  std::string weights = "pacml:reference";
  std::optional<std::string> graph_list;
  long repeats = 200;
  a.bind("weights", "PATH", "weights file or pacml:NAME", weights)
      .bind("graphs", "LIST",
            "comma-separated graph files or zoo names (default: the PipeDream graphs in "
            "../shared/data, else zoo models)",
            graph_list)
      .bind("repeats", "N", "decisions per measurement", repeats, 1, 1000000);
  if (!a.parse(args)) return 0;
  auto policy_ptr = inference::make_learned_policy(weights, "--weights", sim::model_search_dirs());
  auto& policy = dynamic_cast<inference::LearnedPolicy&>(*policy_ptr);
  const std::string profile_name = policy.model().profile();
  sim::GraphCatalog catalog;
  const std::vector<JobGraphPtr> graphs = bench_graphs(graph_list, catalog);
  const JctEstimator estimator(RampTopology::parse("4x4x2"), Profile::by_name(profile_name));
  const ClusterState cluster(estimator.topology());
  const std::vector<bool> mask = action_mask(cluster, 16);
  Rng rng(1);
  Table t({"graph", "step ops", "step edges", "network cold ms", "network warm ms",
           "feasible cold ms", "feasible cached ms", "action"});
  for (const auto& g : graphs) {
    DecisionContext ctx{*g, 0.5, cluster, mask, estimator, nullptr, rng};
    std::vector<double> cold, warm, feasible_cold, feasible_cached;
    int action = 0;
    for (long i = 0; i < repeats; ++i) {
      // The actions' outlook: one estimate per valid action (and the room
      // left after it), without and with a lookahead cache (the simulator's
      // and the plugin's steady state).
      LookaheadCache cache;
      const double f0 = cpu_seconds();
      const features::ActionOutlook feasible =
          features::action_outlook(*g, 0.5, cluster, mask, estimator, &cache);
      const double f1 = cpu_seconds();
      features::action_outlook(*g, 0.5, cluster, mask, estimator, &cache);
      const double f2 = cpu_seconds();
      feasible_cold.push_back((f1 - f0) * 1e3);
      feasible_cached.push_back((f2 - f1) * 1e3);
      // The network: features + message passing + heads for a new graph
      // (cold), then the same graph again (embedding cached).
      inference::LearnedPolicy fresh(policy.model_ptr(), "bench");
      const double t0 = cpu_seconds();
      action = fresh.decide(ctx, feasible).action;
      const double t1 = cpu_seconds();
      fresh.decide(ctx, feasible);
      const double t2 = cpu_seconds();
      cold.push_back((t1 - t0) * 1e3);
      warm.push_back((t2 - t1) * 1e3);
    }
    t.add({g->name(), std::to_string(g->step().num_ops()), std::to_string(g->step().num_deps()),
           significant_number_text(median(cold), 4), significant_number_text(median(warm), 4),
           significant_number_text(median(feasible_cold), 4),
           significant_number_text(median(feasible_cached), 4), std::to_string(action)});
  }
  std::cout << "learned policy " << policy.name() << " (" << profile_name
            << " profile), 1 thread, median of " << repeats << "\n";
  t.print(std::cout);
  return 0;
}

}  // namespace

PACML_COMMAND("train", "train the PAC-ML policy (runs pacml-train; needs LibTorch)", run_train);
PACML_COMMAND("bench-policy", "time the learned policy's inference (no LibTorch)",
              run_bench_policy);

}  // namespace pacml::cli
