#include "core/parallel/physical_estimator.h"

#include "core/parallel/strategies.h"
#include "core/util/error.h"

namespace pacml {

const char* strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::kAuto:
      return "auto";
    case Strategy::kData:
      return "data";
    case Strategy::kTensor:
      return "tensor";
    case Strategy::kHybrid:
      return "hybrid";
    case Strategy::kPipeline:
      return "pipeline";
    case Strategy::kOp:
      return "op";
    case Strategy::kFsdp:
      return "fsdp";
    case Strategy::kZero1:
      return "zero1";
    case Strategy::kFsdpTensor:
      return "fsdp-tensor";
  }
  return "unknown";
}

Strategy parse_strategy(const std::string& text, const std::string& where) {
  if (text == strategy_name(Strategy::kAuto)) return Strategy::kAuto;
  std::string known = strategy_name(Strategy::kAuto);
  for (Strategy s : kSearchedStrategies) {
    if (text == strategy_name(s)) return s;
    known += std::string(", ") + strategy_name(s);
  }
  throw InputError(where, "unknown strategy '" + text + "'; known: " + known);
}

const char* plan_status_name(PlanStatus status) {
  switch (status) {
    case PlanStatus::kOk:
      return "ok";
    case PlanStatus::kOom:
      return "oom";
    case PlanStatus::kNoPlacement:
      return "no_placement";
    case PlanStatus::kDeadline:
      return "deadline";
  }
  return "unknown";
}

PhysicalEstimator::PhysicalEstimator(ClusterSpec cluster, PhysicalConstants constants,
                                     std::shared_ptr<const ThroughputTable> table)
    : cluster_(std::move(cluster)),
      // The host's cost is the cluster's GPU's (its device file's `host:`).
      constants_(with_host_of(constants, cluster_.device)),
      collectives_(cluster_, constants_),
      table_(std::move(table)) {}

ParallelPlan PhysicalEstimator::concrete(const ParallelJob& job, int gpus,
                                         Strategy strategy) const {
  const StrategyContext context{cluster_, constants_, collectives_};
  switch (strategy) {
    case Strategy::kData:
      return plan_data(job, gpus, context);
    case Strategy::kTensor:
      return plan_tensor(job, gpus, context);
    case Strategy::kHybrid:
      return plan_hybrid(job, gpus, context);
    case Strategy::kPipeline:
      return plan_pipeline(job, gpus, context);
    case Strategy::kOp:
      return plan_op(job, gpus, context);
    case Strategy::kFsdp:
      return plan_fsdp(job, gpus, context);
    case Strategy::kZero1:
      return plan_zero1(job, gpus, context);
    case Strategy::kFsdpTensor:
      return plan_fsdp_tensor(job, gpus, context);
    case Strategy::kAuto:
      break;
  }
  return best_of_all(job, gpus);
}

// The fastest plan that runs; if none does, the most telling refusal (an
// oom before a split that does not exist), so the user learns why.
//
// Sharded strategies (zero1, fsdp, fsdp-tensor) are searched only when no
// replicated one fits: that is how they are used (a job moves to FSDP when
// DDP runs out of memory), and the model does not yet charge FSDP's own
// per-unit costs (the wrapper's hooks, the gathered copies' allocation), so
// comparing its step time against DDP's would favour it wrongly.
ParallelPlan PhysicalEstimator::best_of_all(const ParallelJob& job, int gpus) const {
  ParallelPlan best;
  bool have = false;
  for (Strategy s : kSearchedStrategies) {
    const bool sharded =
        s == Strategy::kZero1 || s == Strategy::kFsdp || s == Strategy::kFsdpTensor;
    if (sharded && have && best.ok()) break;
    const ParallelPlan p = concrete(job, gpus, s);
    const bool better = !have || (p.ok() && (!best.ok() || p.step_time < best.step_time)) ||
                        (!p.ok() && !best.ok() && p.status == PlanStatus::kOom &&
                         best.status == PlanStatus::kNoPlacement);
    if (better) best = p, have = true;
  }
  return best;
}

ParallelPlan PhysicalEstimator::analytic_plan(const ParallelJob& job, int gpus,
                                              Strategy strategy) const {
  if (gpus < 1 || gpus > cluster_.num_gpus())
    throw InputError("--gpus", "GPU count must be between 1 and the cluster's " +
                                   std::to_string(cluster_.num_gpus()) + ", got " +
                                   std::to_string(gpus));
  return concrete(job, gpus, strategy);
}

ParallelPlan PhysicalEstimator::plan(const ParallelJob& job, int gpus, Strategy strategy) const {
  ParallelPlan plan = analytic_plan(job, gpus, strategy);
  if (!table_ || !plan.ok()) return plan;
  const auto measured = table_->step_time(job.name(), job.global_batch(), gpus);
  // The table measured data parallelism; it answers for data and auto.
  if (!measured || (strategy != Strategy::kAuto && strategy != Strategy::kData)) return plan;
  const ParallelPlan data = analytic_plan(job, gpus, Strategy::kData);
  if (data.ok()) plan = data;
  const double scale = *measured / plan.step_time;
  plan.step_time = *measured;
  plan.comp *= scale, plan.comm *= scale, plan.overlap *= scale;
  plan.measured = true;
  return plan;
}

double PhysicalEstimator::single_gpu_step_time(const ParallelJob& job) const {
  if (table_)
    if (const auto measured = table_->step_time(job.name(), job.global_batch(), 1))
      return *measured;
  return concrete(job, 1, Strategy::kData).step_time;
}

}  // namespace pacml
