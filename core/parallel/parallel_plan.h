// What the physical model predicts for a job on k GPUs with one strategy
// (doc/PHYSICAL.md §3): the split, one step's time and memory, and whether
// the job can run that way at all.
#pragma once

#include <string>

namespace pacml {

enum class Strategy {
  kAuto,
  kData,
  kTensor,
  kHybrid,
  kPipeline,
  kOp,
  kFsdp,        // ZeRO-3: parameters, gradients and optimizer state sharded
  kZero1,       // DDP with the optimizer state sharded
  kFsdpTensor,  // tensor parallel inside a server, fsdp across
};
// The strategies the learned GPU policy one-hot encodes (core/gpu/features.cpp
// sizes its action vector by this list, and trained models were saved with
// that size): the original five. Plans of a later strategy
// read as none of them there.
constexpr Strategy kConcreteStrategies[] = {Strategy::kData, Strategy::kTensor, Strategy::kHybrid,
                                            Strategy::kPipeline, Strategy::kOp};
// Every strategy `auto` tries, in the order ties are broken (first wins); the
// sharded ones last, only when no replicated one fits (physical_estimator.cpp).
constexpr Strategy kSearchedStrategies[] = {
    Strategy::kData, Strategy::kTensor, Strategy::kHybrid, Strategy::kPipeline,
    Strategy::kOp,   Strategy::kZero1,  Strategy::kFsdp,   Strategy::kFsdpTensor};

const char* strategy_name(Strategy strategy);
// "auto", "data", "tensor", "hybrid", "pipeline", "op", "fsdp", "zero1",
// "fsdp-tensor"; throws InputError(where, ...).
Strategy parse_strategy(const std::string& text, const std::string& where = "--strategy");

// What a plan says besides its time, for a policy that compares GPU counts
// (core/gpu/features.h): how full its fullest GPU's memory is and
// which strategy it splits the job with. kAuto: not planned, or the job
// cannot run that way.
struct PlanTraits {
  // What the verdict counts on the fullest GPU (peak + what no tensor holds)
  // / a GPU's memory.
  float memory_share = 0;
  Strategy strategy = Strategy::kAuto;
};

enum class PlanStatus {
  kOk,
  kOom,          // does not fit in GPU memory this way
  kNoPlacement,  // no such split or placement (k > cluster, k > batch, k ∤ heads, ...)
  kDeadline,     // runs, but not within the job's deadline
};
const char* plan_status_name(PlanStatus status);

// One rank's memory at its peak, term by term (doc/PHYSICAL.md §3): what
// PyTorch's caching allocator counts (torch.cuda.max_memory_allocated), and
// apart from it what no tensor holds.
struct MemoryTerms {
  double weights = 0;          // fp32 parameters (the master copy under autocast)
  double gradients = 0;        // fp32 parameter gradients
  double optimizer_state = 0;  // AdamW's two moments or SGD's momentum
  double cast_weights = 0;     // autocast's bf16/fp16 copies, saved for backward
  double gathered_units = 0;   // fsdp: unsharded units in flight (two gathered, one's gradient)
  double activations = 0;      // saved for the backward pass
  double temporary = 0;        // the largest transient: the biggest output's gradient
  // Not a tensor: CUDA context, NCCL buffers, the allocator's fragmentation.
  double unheld = 0;

  double peak() const {
    return weights + gradients + optimizer_state + cast_weights + gathered_units + activations +
           temporary;
  }
  // What must fit in the GPU's memory.
  double verdict() const { return peak() + unheld; }
};

struct ParallelPlan {
  int gpus = 1;
  int servers = 1;          // servers the job spans (as few as possible)
  int gpus_per_server = 1;  // on the fullest of them
  Strategy strategy = Strategy::kData;
  int tp = 1, pp = 1, dp = 1;  // tensor, pipeline and data degrees (tp·pp·dp = gpus);
                               // fsdp and zero1 shard over the dp ranks
  int micro_batches = 1;       // pipeline: micro-batches per step
  int per_gpu_batch = 1;       // samples one data-parallel rank processes per step
  double step_time = 0;        // seconds per training step
  double comp = 0;             // seconds per step with compute running
  double comm = 0;             // seconds per step with communication running
  double overlap = 0;          // seconds per step with both
  double memory_per_gpu = 0;   // bytes allocated at the peak on the fullest GPU (memory.peak())
  MemoryTerms memory;          // its terms, and what the verdict adds
  bool measured = false;       // step_time from a throughput table
  PlanStatus status = PlanStatus::kOk;
  std::string why;  // for people, when status is not ok

  bool ok() const { return status == PlanStatus::kOk; }
};

}  // namespace pacml
