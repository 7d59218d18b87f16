// `pacml estimate` — time one job on an empty cluster for every degree (or
// one). The physical profile (default) predicts GPU counts and strategies
// (estimate_physical.h); the reference profile partitions, places and times
// the job on RAMP for every action as the paper's simulator does.
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cluster/cluster_state.h"
#include "core/jct/estimator.h"
#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/cli/estimate_physical.h"
#include "sim/cli/graph_source.h"
#include "sim/cli/table.h"
#include "sim/cli/world_option.h"

namespace pacml::cli {
namespace {

std::string histogram_text(const std::vector<int>& splits) {
  std::string text;
  for (const auto& [k, count] : split_histogram(splits))
    text += (text.empty() ? "" : " ") + std::to_string(k) + ":" + std::to_string(count);
  return text;
}

nlohmann::json to_json(const Estimate& e) {
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [k, count] : split_histogram(e.splits)) histogram[std::to_string(k)] = count;
  return {{"action", e.action},
          {"placed", e.placed},
          {"accepted", e.accepted()},
          {"blocked", block_cause_name(e.blocked)},
          {"degree", e.degree},
          {"split_histogram", histogram},
          {"servers", e.servers_used()},
          {"partitioned_ops", e.partitioned_ops},
          {"partitioned_deps", e.partitioned_deps},
          {"jct", e.jct},
          {"jct_max", e.jct_max},
          {"jct_seq", e.sequential_jct},
          {"speedup", e.speedup},
          {"comm", e.comm_time},
          {"comp", e.comp_time},
          {"overlap", e.overlap_time}};
}

int estimate_command(const std::vector<std::string>& argv) {
  Args args(
      "pacml estimate --model NAME|--graph FILE [--gpus K] [--strategy S] [--cluster FILE] "
      "[--world gpu|paper] [--json]",
      "Estimates one job's completion time on an empty cluster.\n"
      "world gpu (default): for each GPU count k, the fastest strategy that fits in\n"
      "memory (data, tensor, hybrid, pipeline, op), its step time, JCT, speed-up over one\n"
      "GPU, communication / computation time, memory per GPU and status.\n"
      "world paper: the paper's RAMP model (reference profile); for each action a (max partitions "
      "per op)\n"
      "the split histogram, servers used, JCT and speed-up.");
  EstimateOptions o;
  add_graph_options(args, o.graph);
  add_world_options(args, o.world,
                    "gpu: GPU counts with the physical model (s); paper: the paper's actions with "
                    "its reference profile (ms)");
  args.bind("topology", "CxRxS",
            "the paper's RAMP cluster of this shape: groups x racks x servers (default 4x4x2)",
            o.cluster.topology);
  args.bind("action", "A", "world paper: only this action (1 or even up to 16); gpu: = --gpus",
            o.action, 1, kMaxAction);
  args.bind("beta", "F", "JCT requirement as a fraction of the one-GPU JCT, in (0, 1]", o.beta);
  args.bind("steps", "N", "training steps per job", o.steps, 1, 1'000'000'000);
  add_physical_estimate_options(args, o);
  args.bind_flag("json", "print one JSON array of objects", o.json);
  if (!args.parse(argv)) return 0;
  if (chosen_world(o.world) == World::kGpu) return estimate_physical(o);
  const std::pair<const char*, bool> physical_only[] = {
      {"cluster", o.cluster.cluster.has_value()},
      {"gpus", o.gpus.has_value()},
      {"strategy", o.strategy.has_value()},
      {"deadline", o.deadline.has_value()},
      {"throughput-table", o.cluster.throughput_table.has_value()},
      {"profiled-batch", o.job.profiled_batch.has_value()}};
  for (const auto& [name, given] : physical_only)
    if (given) throw InputError(std::string("--") + name, "applies to world gpu only");
  const JobGraphPtr job = load_job_graph(o.graph);
  const JctEstimator estimator(RampTopology::parse(o.cluster.topology.value_or("4x4x2")),
                               Profile::reference(), static_cast<int>(o.steps));
  const double beta = o.beta.value_or(1.0);
  std::vector<int> actions;
  if (o.action) {
    check_action(*o.action, kMaxAction, "--action");
    actions.push_back(*o.action);
  } else {
    for (int a = 1; a <= kMaxAction; a = a == 1 ? 2 : a + 2) actions.push_back(a);
  }
  const ClusterState empty(estimator.topology());
  nlohmann::json rows = nlohmann::json::array();
  Table table(
      {"action", "splits (k:count)", "servers", "JCT", "speed-up", "comm", "comp", "status"});
  for (int a : actions) {
    const Estimate e = estimator.estimate(*job, a, beta, empty);
    rows.push_back(to_json(e));
    table.add({std::to_string(a), histogram_text(e.splits),
               e.placed ? std::to_string(e.servers_used()) : "-",
               e.placed ? significant_number_text(e.jct, 10) : "-",
               e.placed ? significant_number_text(e.speedup, 4) : "-",
               e.placed ? significant_number_text(e.comm_time, 4) : "-",
               e.placed ? significant_number_text(e.comp_time, 6) : "-",
               e.accepted() ? "ok" : block_cause_name(e.blocked)});
  }
  if (o.json) {
    std::cout << rows.dump(2) << "\n";
    return 0;
  }
  std::cout << job->name() << " on RAMP " << estimator.topology().shape() << ", profile "
            << estimator.profile().name << " (times in " << estimator.profile().time_unit << ", "
            << estimator.steps() << " steps, JCT_seq "
            << significant_number_text(estimator.sequential_jct(*job), 10) << ", beta " << beta
            << ")\n";
  table.print(std::cout);
  return 0;
}

}  // namespace

PACML_COMMAND("estimate", "estimate a job's completion time for each action", estimate_command);

}  // namespace pacml::cli
