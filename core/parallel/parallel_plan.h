// What the physical model predicts for a job on k GPUs with one strategy
// (doc/PHYSICAL.md §3): the split, one step's time and memory, and whether
// the job can run that way at all.
#pragma once

#include <string>

namespace pacml {

enum class Strategy { kAuto, kData, kTensor, kHybrid, kPipeline, kOp };
constexpr Strategy kConcreteStrategies[] = {Strategy::kData, Strategy::kTensor, Strategy::kHybrid,
                                            Strategy::kPipeline, Strategy::kOp};

const char* strategy_name(Strategy strategy);
// "auto", "data", "tensor", "hybrid", "pipeline", "op"; throws InputError(where, ...).
Strategy parse_strategy(const std::string& text, const std::string& where = "--strategy");

// What a plan says besides its time, for a policy that compares GPU counts
// (core/features/gpu_features.h): how full its fullest GPU's memory is and
// which strategy it splits the job with. kAuto: not planned, or the job
// cannot run that way.
struct PlanTraits {
  float memory_share = 0;  // bytes on the fullest GPU / a GPU's memory
  Strategy strategy = Strategy::kAuto;
};

enum class PlanStatus {
  kOk,
  kOom,          // does not fit in GPU memory this way
  kNoPlacement,  // no such split or placement (k > cluster, k > batch, k ∤ heads, ...)
  kDeadline,     // runs, but not within the job's deadline
};
const char* plan_status_name(PlanStatus status);

struct ParallelPlan {
  int gpus = 1;
  int servers = 1;          // servers the job spans (as few as possible)
  int gpus_per_server = 1;  // on the fullest of them
  Strategy strategy = Strategy::kData;
  int tp = 1, pp = 1, dp = 1;  // tensor, pipeline and data degrees (tp·pp·dp = gpus)
  int micro_batches = 1;       // pipeline: micro-batches per step
  int per_gpu_batch = 1;       // samples one data-parallel rank processes per step
  double step_time = 0;        // seconds per training step
  double comp = 0;             // seconds per step with compute running
  double comm = 0;             // seconds per step with communication running
  double overlap = 0;          // seconds per step with both
  double memory_per_gpu = 0;   // bytes on the fullest GPU
  bool measured = false;       // step_time from a throughput table
  PlanStatus status = PlanStatus::kOk;
  std::string why;  // for people, when status is not ok

  bool ok() const { return status == PlanStatus::kOk; }
};

}  // namespace pacml
