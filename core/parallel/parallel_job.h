// A training job as the physical model sees it (doc/PHYSICAL.md §3): a model
// at a fixed global batch, whose forward graph can be costed again at any
// per-GPU batch, with what the strategies need to know about its shape.
//
// Zoo models are rebuilt at the per-GPU batch, so a small shard loses the
// efficiency the analytic cost model says it loses (kernel launches, memory-
// bound layers). A profiled graph (PipeDream, native YAML) was measured at one
// batch: its times scale with the batch, each op keeping at least one kernel
// launch, and its activations scale linearly.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/graph/layer_graph.h"
#include "core/zoo/model_zoo.h"

namespace pacml {

enum class ModelFamily { kCnn, kTransformer, kRnn, kOther };

// The batch a graph file's op times are taken as measured at when nothing
// says otherwise (`pacml estimate --profiled-batch`, a workload's
// `profiled_batch`, the Slurm plugin, the paper-style simulator).
constexpr int kDefaultProfiledBatch = 64;
const char* model_family_name(ModelFamily family);

// The optimizer whose state a rank keeps. kDefault: SGD with momentum for
// CNNs, AdamW otherwise (the rule before the option existed).
enum class Optimizer { kDefault, kAdamW, kSgd };
const char* optimizer_name(Optimizer optimizer);  // "default", "adamw", "sgd"
// "adamw" or "sgd"; throws InputError(where, ...).
Optimizer parse_optimizer(const std::string& text, const std::string& where = "--optimizer");

// How the job trains, besides its model and precision (doc/PHYSICAL.md §3).
struct TrainingOptions {
  // Recompute: each block keeps only its input for the backward pass and
  // runs its forward again before its backward.
  bool activation_checkpointing = false;
  Optimizer optimizer = Optimizer::kDefault;
};

// Transformer blocks, for tensor parallelism (0 everywhere for other models).
struct TransformerShape {
  int layers = 0, hidden = 0, heads = 0, seq_len = 0;
};

class ParallelJob {
 public:
  // A zoo model; options.batch is the job's global batch (default: the model's).
  static std::shared_ptr<const ParallelJob> from_zoo(const std::string& model,
                                                     const ZooOptions& options,
                                                     const TrainingOptions& training = {});
  // A profiled graph measured at `profiled_batch` samples per step, run at
  // `global_batch` (0: the profiled batch). Parameter bytes are 4 per value.
  static std::shared_ptr<const ParallelJob> from_graph(const LayerGraph& graph, int profiled_batch,
                                                       int global_batch,
                                                       ModelFamily family = ModelFamily::kOther,
                                                       const TrainingOptions& training = {});

  const std::string& name() const { return name_; }
  int global_batch() const { return global_batch_; }
  ModelFamily family() const { return family_; }
  Precision precision() const { return precision_; }
  const TransformerShape& transformer() const { return shape_; }
  double parameter_bytes() const { return parameter_bytes_; }
  double parameters() const { return parameters_; }
  int bytes_per_value() const { return bytes_per_element(precision_); }
  const TrainingOptions& training() const { return training_; }
  bool checkpointing() const { return training_.activation_checkpointing; }
  // The optimizer, the default resolved by the model's family.
  Optimizer optimizer() const;
  // A profiled graph: its op times come from the file (the GPU it was
  // measured on), scaled from `profiled_batch()`, not from the cluster's device.
  bool from_profile() const { return !from_zoo_; }
  int profiled_batch() const { return profiled_batch_; }
  // The forward graph costed at `batch` samples (1..global batch), cached.
  // Thread-safe.
  std::shared_ptr<const LayerGraph> at_batch(int batch) const;
  // A content digest of everything that determines the job's timings.
  const std::string& key() const { return key_; }
  // This object's number, never given to another ParallelJob in the process:
  // a cache that remembers the job it answered last compares it in O(1)
  // (an address can be reused; a key is long and compared byte by byte).
  std::uint64_t serial() const { return serial_; }

 private:
  ParallelJob();
  LayerGraph build(int batch) const;

  std::string name_, key_;
  std::uint64_t serial_;
  int global_batch_ = 1;
  ModelFamily family_ = ModelFamily::kOther;
  Precision precision_ = Precision::kFp32;
  TransformerShape shape_;
  TrainingOptions training_;
  double parameter_bytes_ = 0, parameters_ = 0;
  // Zoo: rebuilt at each batch. Graph: the profile and its batch.
  bool from_zoo_ = false;
  std::string zoo_model_;
  ZooOptions zoo_options_;
  LayerGraph profile_;
  int profiled_batch_ = 1;
  mutable std::mutex mutex_;
  mutable std::map<int, std::shared_ptr<const LayerGraph>> by_batch_;
};

using ParallelJobPtr = std::shared_ptr<const ParallelJob>;

}  // namespace pacml
