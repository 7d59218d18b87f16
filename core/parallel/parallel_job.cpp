#include "core/parallel/parallel_job.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "core/util/error.h"

namespace pacml {
namespace {

ModelFamily family_of(const std::string& zoo_family) {
  if (zoo_family == "cnn") return ModelFamily::kCnn;
  if (zoo_family == "transformer") return ModelFamily::kTransformer;
  if (zoo_family == "rnn") return ModelFamily::kRnn;
  return ModelFamily::kOther;
}

double total_parameter_bytes(const LayerGraph& graph) {
  double bytes = 0;
  for (const Layer& layer : graph.layers) bytes += layer.parameter_bytes;
  return bytes;
}

// A profiled op run at `scale` times its profiled batch: compute scales,
// but never below one kernel launch (the op still runs).
constexpr double kMinOpMs = 0.005;

double scaled_time(double ms, double scale) {
  return ms <= 0 ? 0 : std::max(std::min(ms, kMinOpMs), ms * scale);
}

// The key's suffix for the training options; empty for the defaults, so a
// job's key (and every cache keyed by it) is what it was before the options.
std::string training_key(const TrainingOptions& training) {
  std::string key;
  if (training.activation_checkpointing) key += "/ckpt";
  if (training.optimizer != Optimizer::kDefault)
    key += std::string("/") + optimizer_name(training.optimizer);
  return key;
}

}  // namespace

const char* optimizer_name(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kDefault:
      break;
  }
  return "default";
}

Optimizer parse_optimizer(const std::string& text, const std::string& where) {
  for (Optimizer o : {Optimizer::kAdamW, Optimizer::kSgd})
    if (text == optimizer_name(o)) return o;
  throw InputError(where, "unknown optimizer '" + text + "'; known: adamw, sgd");
}

Optimizer ParallelJob::optimizer() const {
  if (training_.optimizer != Optimizer::kDefault) return training_.optimizer;
  return family_ == ModelFamily::kCnn ? Optimizer::kSgd : Optimizer::kAdamW;
}

const char* model_family_name(ModelFamily family) {
  switch (family) {
    case ModelFamily::kCnn:
      return "cnn";
    case ModelFamily::kTransformer:
      return "transformer";
    case ModelFamily::kRnn:
      return "rnn";
    case ModelFamily::kOther:
      break;
  }
  return "other";
}

ParallelJob::ParallelJob() {
  static std::atomic<std::uint64_t> next{1};
  serial_ = next.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<const ParallelJob> ParallelJob::from_zoo(const std::string& model,
                                                         const ZooOptions& options,
                                                         const TrainingOptions& training) {
  const ZooModelInfo& info = zoo_model_info(model);
  std::shared_ptr<ParallelJob> job(new ParallelJob());
  // Build once at the global batch: validates every option and gives the shape.
  const ZooGraph full = build_zoo_model(model, options);
  job->name_ = info.name;
  job->from_zoo_ = true;
  job->zoo_model_ = info.name;
  job->zoo_options_ = options;
  job->global_batch_ = full.batch;
  job->family_ = family_of(info.family);
  job->precision_ = full.precision;
  job->parameters_ = full.params;
  job->parameter_bytes_ = total_parameter_bytes(full.graph);
  job->shape_ = {full.layers, full.hidden, full.heads, full.seq_len};
  // The zoo's configuration text names every choice that shapes the graph
  // (attention, grouped-query heads, vocabulary, ...): equal keys, equal graphs.
  job->key_ = "zoo:" + full.configuration + training_key(training);
  job->training_ = training;
  job->by_batch_[full.batch] = std::make_shared<const LayerGraph>(full.graph);
  return job;
}

std::shared_ptr<const ParallelJob> ParallelJob::from_graph(const LayerGraph& graph,
                                                           int profiled_batch, int global_batch,
                                                           ModelFamily family,
                                                           const TrainingOptions& training) {
  graph.validate(graph.model_name);
  if (profiled_batch < 1) throw InputError("--batch", "the profiled batch must be at least 1");
  if (global_batch < 0) throw InputError("--batch", "the batch must be at least 1");
  std::shared_ptr<ParallelJob> job(new ParallelJob());
  job->name_ = graph.model_name;
  job->profile_ = graph;
  job->profiled_batch_ = profiled_batch;
  job->global_batch_ = global_batch ? global_batch : profiled_batch;
  job->family_ = family;
  job->training_ = training;
  job->parameter_bytes_ = total_parameter_bytes(graph);
  job->parameters_ = job->parameter_bytes_ / 4;
  std::ostringstream key;
  key.precision(17);
  key << "graph:" << graph.model_name << "/" << graph.num_layers() << "/" << profiled_batch << "/"
      << job->global_batch_ << training_key(training);
  for (const Layer& layer : graph.layers)
    key << "/" << layer.forward_time << "," << layer.backward_time << "," << layer.activation_bytes
        << "," << layer.parameter_bytes;
  job->key_ = key.str();
  return job;
}

std::shared_ptr<const LayerGraph> ParallelJob::at_batch(int batch) const {
  if (batch < 1) throw InputError("batch", "a per-GPU batch must be at least 1");
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = by_batch_.find(batch);
  if (it != by_batch_.end()) return it->second;
  auto graph = std::make_shared<const LayerGraph>(build(batch));
  by_batch_.emplace(batch, graph);
  return graph;
}

LayerGraph ParallelJob::build(int batch) const {
  if (from_zoo_) {
    ZooOptions options = zoo_options_;
    options.batch = batch;
    return build_zoo_model(zoo_model_, options).graph;
  }
  LayerGraph graph = profile_;
  const double scale = static_cast<double>(batch) / profiled_batch_;
  for (Layer& layer : graph.layers) {
    layer.forward_time = scaled_time(layer.forward_time, scale);
    layer.backward_time = scaled_time(layer.backward_time, scale);
    layer.activation_bytes *= scale;
  }
  return graph;
}

}  // namespace pacml
