// `pacml bench-physical` — how fast the physical model answers (doc/PHYSICAL.md):
// per zoo model, strategy and GPU count, the CPU time of a cold estimate (a
// new job: every graph it needs costed from scratch) and of a warm one (the
// job's graphs cached, as in the simulator and the plugin), median of
// single-threaded runs on dgx-a100-16x8.
#include <time.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/parallel/physical_estimator.h"
#include "core/util/args.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/cli/cpu_timer.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

struct Workload {
  const char* model;
  int batch;
};
// Graphs of 41 to 380 ops; every strategy applies to the transformers.
constexpr Workload kWorkloads[] = {{"vgg16", 256},
                                   {"resnet50", 256},
                                   {"inception_v3", 128},
                                   {"bert-base", 64},
                                   {"gpt2-medium", 64}};

int bench_physical_command(const std::vector<std::string>& argv) {
  Args args("pacml bench-physical [--repeats R] [--json]",
            "Benchmarks the physical model: median single-threaded CPU time of one estimate\n"
            "(pacml estimate --gpus K --strategy S) cold (a new job) and warm (its graphs\n"
            "cached), per zoo model, strategy and K = 1, 8, 64 on dgx-a100-16x8.\n"
            "Targets: cold <= 10 ms, warm <= 1 ms for graphs up to 400 ops, K <= 64.");
  int repeats = 11;
  bool json = false;
  args.bind("repeats", "R", "runs per case (median reported)", repeats, 1, 100000);
  args.bind_flag("json", "print one JSON array", json);
  if (!args.parse(argv)) return 0;
  const PhysicalEstimator estimator(load_cluster("dgx-a100-16x8"));
  nlohmann::json rows = nlohmann::json::array();
  Table table({"model", "ops", "strategy", "GPUs", "cold ms", "warm ms", "status"});
  double worst_cold = 0, worst_warm = 0;
  for (const Workload& w : kWorkloads) {
    ZooOptions options;
    options.batch = w.batch;
    const ParallelJobPtr warm = ParallelJob::from_zoo(w.model, options);
    const int ops = warm->at_batch(w.batch)->num_layers();
    for (Strategy s : {Strategy::kAuto, Strategy::kData, Strategy::kTensor, Strategy::kHybrid,
                       Strategy::kPipeline, Strategy::kOp})
      for (int k : {1, 8, 64}) {
        ParallelPlan plan;
        const double cold = median_ms(repeats, [&] {
          plan = estimator.plan(*ParallelJob::from_zoo(w.model, options), k, s);
        });
        estimator.plan(*warm, k, s);
        const double hot = median_ms(repeats, [&] { plan = estimator.plan(*warm, k, s); });
        worst_cold = std::max(worst_cold, cold);
        worst_warm = std::max(worst_warm, hot);
        table.add({w.model, std::to_string(ops), strategy_name(s), std::to_string(k),
                   significant_number_text(cold, 3), significant_number_text(hot, 3),
                   plan_status_name(plan.status)});
        rows.push_back({{"model", w.model},
                        {"ops", ops},
                        {"strategy", strategy_name(s)},
                        {"gpus", k},
                        {"cold_ms", cold},
                        {"warm_ms", hot},
                        {"status", plan_status_name(plan.status)}});
      }
  }
  if (json) {
    std::cout << rows.dump(2) << "\n";
    return 0;
  }
  std::cout << "physical estimate on dgx-a100-16x8, median of " << repeats
            << " single-threaded runs (CPU time)\n";
  table.print(std::cout);
  std::cout << "slowest: cold " << significant_number_text(worst_cold, 3)
            << " ms (target 10), warm " << significant_number_text(worst_warm, 3)
            << " ms (target 1)\n";
  return 0;
}

}  // namespace

PACML_COMMAND("bench-physical", "benchmark the physical model's estimates", bench_physical_command);

}  // namespace pacml::cli
