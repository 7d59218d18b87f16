#include "sim/cli/estimate_physical.h"
#include "core/util/numbers.h"

#include <algorithm>
#include <iostream>

#include "core/partition/split_counts.h"
#include "core/util/error.h"
#include "sim/cli/parallel_source.h"
#include "sim/cli/table.h"

namespace pacml::cli {
namespace {

// The GPU counts listed by default: on the paper's cluster (--topology, the
// default) its actions 1, 2, 4, ..., 16; elsewhere powers of two up to the
// cluster, and the cluster's size itself.
std::vector<int> default_gpu_counts(int cluster_gpus, bool paper_cluster) {
  std::vector<int> counts;
  if (paper_cluster) {
    for (int a = 1; a <= std::min(kMaxAction, cluster_gpus); a = a == 1 ? 2 : a + 2)
      counts.push_back(a);
    return counts;
  }
  for (int k = 1; k <= cluster_gpus; k *= 2) counts.push_back(k);
  if (counts.back() != cluster_gpus) counts.push_back(cluster_gpus);
  return counts;
}

std::string split_text(const ParallelPlan& p) {
  std::string text = strategy_name(p.strategy);
  if (p.tp > 1) text += " tp" + std::to_string(p.tp);
  if (p.pp > 1) text += " pp" + std::to_string(p.pp) + "x" + std::to_string(p.micro_batches);
  if (p.dp > 1 && p.strategy != Strategy::kData) text += " dp" + std::to_string(p.dp);
  return text + (p.measured ? " (measured)" : "");
}

// Applies the job's requirement: a deadline in seconds, or β × JCT on one GPU.
void apply_requirement(ParallelPlan& plan, long steps, const EstimateOptions& o, double single) {
  if (!plan.ok()) return;
  const double jct = plan.step_time * steps;
  if (o.deadline) {
    if (jct > *o.deadline) {
      plan.status = PlanStatus::kDeadline;
      plan.why = "predicted JCT exceeds the deadline";
    }
  } else if (o.beta) {
    if (jct > *o.beta * single * steps * (1 + 1e-12)) {
      plan.status = PlanStatus::kDeadline;
      plan.why = "predicted JCT exceeds beta x the one-GPU JCT";
    }
  }
}

// The GPU counts to estimate: --gpus K, --action A (the paper's rule), or the defaults.
std::vector<int> requested_gpu_counts(const EstimateOptions& o, int cluster_gpus) {
  if (o.gpus) {
    if (*o.gpus > cluster_gpus)
      throw InputError("--gpus", "value must be between 1 and " + std::to_string(cluster_gpus) +
                                     " (the cluster's GPUs), got '" + std::to_string(*o.gpus) +
                                     "'");
    return {*o.gpus};
  }
  if (o.action) {
    // The paper's action a: a GPUs, with the paper's rule (1 or even, <= 16).
    check_action(*o.action, kMaxAction, "--action");
    return {*o.action};
  }
  return default_gpu_counts(cluster_gpus, !o.cluster.cluster);
}

void check_requirement_options(const EstimateOptions& o) {
  if (o.beta && !(*o.beta > 0 && *o.beta <= 1))
    throw InputError("--beta", "beta must be in (0, 1]");
  if (o.deadline && !(*o.deadline > 0))
    throw InputError("--deadline", "the deadline must be a positive number of seconds");
}

void add_row(Table& table, const ParallelPlan& plan, long steps, double single) {
  const bool timed = plan.status != PlanStatus::kNoPlacement;
  auto cell = [&](double value, int digits) {
    return timed ? significant_number_text(value, digits) : "-";
  };
  table.add({std::to_string(plan.gpus), std::to_string(plan.servers), split_text(plan),
             std::to_string(plan.per_gpu_batch), cell(plan.step_time, 4),
             cell(plan.step_time * steps, 5), cell(single / plan.step_time, 3),
             cell(plan.comm * steps, 4), cell(plan.comp * steps, 4),
             cell(plan.memory_per_gpu / 1e9, 3), plan_status_name(plan.status)});
}

void print_header(const ParallelJob& job, const PhysicalEstimator& estimator, long steps,
                  double single) {
  std::cout << job.name() << " (global batch " << job.global_batch() << ", ";
  if (job.from_profile())
    std::cout << "op times from the graph file, profiled at batch " << job.profiled_batch()
              << ", not the cluster's GPU";
  else
    std::cout << precision_name(job.precision());
  std::cout << ") on " << estimator.cluster().summary() << ", profile physical: " << steps
            << " steps, one GPU " << significant_number_text(single, 4) << " s/step\n";
}

// One plan's memory term by term (doc/PHYSICAL.md §3), in GB.
void print_memory(const ParallelPlan& p) {
  if (p.status == PlanStatus::kNoPlacement) return;
  const MemoryTerms& m = p.memory;
  auto gb = [](double bytes) { return significant_number_text(bytes / 1e9, 3); };
  std::cout << "memory per GPU at the peak (GB): weights " << gb(m.weights) << ", gradients "
            << gb(m.gradients) << ", optimizer state " << gb(m.optimizer_state)
            << ", autocast copies " << gb(m.cast_weights) << ", gathered units "
            << gb(m.gathered_units) << ", activations " << gb(m.activations) << ", temporary "
            << gb(m.temporary) << " = " << gb(m.peak()) << "; + not held by tensors "
            << gb(m.unheld) << " = " << gb(m.verdict()) << " for the verdict\n";
}

// A job that runs no way at any GPU count estimated is bad input (exit 2),
// after its rows are printed: each says why.
void refuse_if_it_never_runs(const std::vector<ParallelPlan>& plans, const EstimateOptions& o) {
  for (const ParallelPlan& p : plans)
    if (p.ok() || p.status == PlanStatus::kDeadline) return;
  const ParallelPlan& largest = plans.back();
  throw InputError(o.graph.model ? "--model" : "--graph",
                   "this job fits no strategy on " + std::to_string(largest.gpus) +
                       (plans.size() > 1 ? " or fewer" : "") + " GPUs of this cluster (" +
                       largest.why + ")");
}

}  // namespace

void add_physical_estimate_options(Args& args, EstimateOptions& o) {
  add_cluster_options(args, o.cluster);
  add_profiled_batch_option(args, o.job);
  args.bind("gpus", "K", "physical: only this GPU count (default: 1, 2, 4, ... the cluster)",
            o.gpus, 1, 1 << 20);
  args.excludes("action", "gpus");
  args.bind_parsed(
      "strategy", "S",
      "physical: auto, data, tensor, hybrid, pipeline, op, zero1, fsdp or fsdp-tensor", o.strategy,
      [](const std::string& text, const std::string& where) {
        return std::optional<Strategy>(parse_strategy(text, where));
      },
      "auto");
  args.bind_flag("activation-checkpointing",
                 "physical: recompute each block's forward in the backward pass (saves only block "
                 "inputs)",
                 o.job.training.activation_checkpointing);
  args.bind_parsed("optimizer", "O",
                   "physical: adamw or sgd (default: sgd with momentum for CNNs, adamw otherwise)",
                   o.job.training.optimizer, parse_optimizer);
  args.bind("deadline", "SECONDS", "physical: the job's JCT requirement in seconds", o.deadline);
}

namespace {

// The peak's terms (doc/PHYSICAL.md §3), bytes; `unheld` is not in the peak.
nlohmann::json memory_json(const MemoryTerms& m) {
  return {{"weights", m.weights},
          {"gradients", m.gradients},
          {"optimizer_state", m.optimizer_state},
          {"cast_weights", m.cast_weights},
          {"gathered_units", m.gathered_units},
          {"activations", m.activations},
          {"temporary", m.temporary},
          {"peak", m.peak()},
          {"unheld", m.unheld},
          {"verdict", m.verdict()}};
}

}  // namespace

nlohmann::json plan_json(const ParallelPlan& p, long steps, double single) {
  return {{"gpus", p.gpus},
          {"action", p.gpus},
          {"placed", p.status != PlanStatus::kNoPlacement},
          {"accepted", p.ok()},
          {"servers", p.servers},
          {"gpus_per_server", p.gpus_per_server},
          {"strategy", strategy_name(p.strategy)},
          {"tp", p.tp},
          {"pp", p.pp},
          {"dp", p.dp},
          {"micro_batches", p.micro_batches},
          {"per_gpu_batch", p.per_gpu_batch},
          {"step_time", p.step_time},
          {"jct", p.step_time * steps},
          {"speedup", p.step_time > 0 ? single / p.step_time : 0},
          {"comm", p.comm * steps},
          {"comp", p.comp * steps},
          {"overlap", p.overlap * steps},
          {"memory_per_gpu", p.memory_per_gpu},
          {"memory", memory_json(p.memory)},
          {"measured", p.measured},
          {"status", plan_status_name(p.status)},
          {"why", p.why}};
}

int estimate_physical(const EstimateOptions& o) {
  if (o.cluster.topology && o.cluster.cluster)
    throw InputError("--topology", "give either --topology or --cluster, not both");
  ClusterChoice choice = o.cluster;
  choice.device = o.graph.device;
  const PhysicalEstimator estimator = load_physical_estimator(choice);
  const ParallelJobPtr job = load_parallel_job(o.graph, o.job, estimator.cluster());
  const long steps = o.steps;
  const Strategy strategy = o.strategy.value_or(Strategy::kAuto);
  const std::vector<int> counts = requested_gpu_counts(o, estimator.cluster().num_gpus());
  check_requirement_options(o);
  const double single = estimator.single_gpu_step_time(*job);
  nlohmann::json rows = nlohmann::json::array();
  Table table({"GPUs", "servers", "strategy", "batch/GPU", "step s", "JCT s", "speed-up", "comm s",
               "comp s", "GB/GPU", "status"});
  std::vector<ParallelPlan> plans;
  for (int k : counts) {
    plans.push_back(estimator.plan(*job, k, strategy));
    apply_requirement(plans.back(), steps, o, single);
    rows.push_back(plan_json(plans.back(), steps, single));
    add_row(table, plans.back(), steps, single);
  }
  if (o.json) {
    std::cout << rows.dump(2) << "\n";
  } else {
    print_header(*job, estimator, steps, single);
    table.print(std::cout);
    if (plans.size() == 1) print_memory(plans.front());
  }
  std::cout.flush();
  refuse_if_it_never_runs(plans, o);
  return 0;
}

}  // namespace pacml::cli
