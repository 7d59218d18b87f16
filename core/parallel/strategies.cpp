#include "core/parallel/strategies.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/parallel/step_ops.h"
#include "core/util/text.h"

namespace pacml {
namespace {

// ---- tensor parallelism (Megatron-LM) ---------------------------------------

// Layers Megatron splits over t ranks: the GEMMs (column- then row-parallel)
// and attention, which splits by heads. Norms, residual adds, dropout after
// the projections and embeddings are replicated.
bool tensor_split_layer(const Layer& layer) {
  return starts_with(layer.label, "Linear(") || starts_with(layer.label, "MatMul(") ||
         layer.name.find("softmax") != std::string::npos || ends_with(layer.name, "self.dropout") ||
         ends_with(layer.name, "attn.dropout");
}

// Megatron's activation all-reduces: forward after each row-parallel GEMM
// (attention output, MLP output), backward after each column-parallel one.
bool row_parallel(const std::string& name) {
  return ends_with(name, "attention.output.dense") || ends_with(name, "attn.c_proj") ||
         (ends_with(name, "output.dense") && name.find("attention") == std::string::npos &&
          name.find("encoder.layer") != std::string::npos) ||
         ends_with(name, "mlp.c_proj");
}

bool column_parallel(const std::string& name) {
  return ends_with(name, "attention.self.query") || ends_with(name, "attn.c_attn") ||
         ends_with(name, "intermediate.dense") || ends_with(name, "mlp.c_fc");
}

// The step of one rank of a t-way tensor-parallel group, dp-way replicated.
ParallelPlan plan_tensor_groups(const ParallelJob& job, int gpus, int t, Strategy strategy,
                                const StrategyContext& context) {
  ParallelPlan plan = base_plan(gpus, strategy, context.cluster);
  const TransformerShape& shape = job.transformer();
  if (shape.layers == 0)
    return refuse(plan, PlanStatus::kNoPlacement, "tensor parallelism splits transformer blocks");
  if (t < 2 || shape.heads % t != 0 || shape.hidden % t != 0)
    return refuse(plan, PlanStatus::kNoPlacement,
                  "tensor degree " + std::to_string(t) + " must divide the heads (" +
                      std::to_string(shape.heads) + ") and the hidden size");
  const int dp = gpus / t;
  if (dp * t != gpus || dp > job.global_batch())
    return refuse(plan, PlanStatus::kNoPlacement, "no tensor x data split of this GPU count");
  plan.tp = t, plan.dp = dp;
  plan.per_gpu_batch = ceil_div(job.global_batch(), dp);
  const auto graph = job.at_batch(plan.per_gpu_batch);
  const WorkShare share = [t](const Layer& l) { return tensor_split_layer(l) ? 1.0 / t : 1.0; };
  // The tensor group sits inside one server when it fits in one.
  const GpuGroup tp_group = pack_gpus(t, context.cluster.gpus_per_server);
  const double act_bytes = static_cast<double>(plan.per_gpu_batch) * shape.seq_len * shape.hidden *
                           job.bytes_per_value();
  const double act_reduce = context.collectives.all_reduce(act_bytes, tp_group);
  const double host = context.constants.host_time_per_op(job.family());
  std::vector<TimelineOp> ops;
  for (const Layer& layer : graph->layers) {
    if (layer.forward_time > 0) ops.push_back({host, layer.forward_time * 1e-3 * share(layer)});
    if (row_parallel(layer.name)) ops.push_back({0, act_reduce, true});
  }
  std::vector<int> ready(graph->layers.size(), 0);
  for (int l = graph->num_layers() - 1; l >= 0; --l) {
    const Layer& layer = graph->layers[l];
    if (layer.backward_time > 0) ops.push_back({host, layer.backward_time * 1e-3 * share(layer)});
    ready[l] = std::max(0, static_cast<int>(ops.size()) - 1);
    if (column_parallel(layer.name)) ops.push_back({0, act_reduce, true});
  }
  // Data-parallel gradient all-reduce of each rank's 1/t shard, across the
  // replicas: one GPU per tensor group on each server.
  const GpuGroup full = pack_gpus(gpus, context.cluster.gpus_per_server);
  const GpuGroup dp_group{dp, full.servers, std::max(1, full.per_server / t)};
  const auto buckets =
      dp > 1 ? gradient_buckets(
                   *graph, ready, share, context.constants.bucket_bytes,
                   [&](double bytes) { return context.collectives.all_reduce(bytes, dp_group); })
             : std::vector<TimelineCollective>{};
  const TimelineResult timeline = run_timeline(ops, buckets, context.constants.host_per_step,
                                               context.constants.overlap_slowdown);
  const double params = job.parameters() / t;
  take_timing(plan, timeline,
              optimizer_time(job, params, weighted_layers(*graph),
                             context.cluster.device.memory_bandwidth, host));
  admit_memory(plan, params * state_bytes_per_parameter(job) + activation_bytes(*graph, share),
               context);
  return plan;
}

// ---- pipeline parallelism -----------------------------------------------------

struct Stages {
  std::vector<int> first;  // first layer of each stage (node order), plus an end marker
};

// Contiguous stages of about equal forward + backward time.
Stages balance_stages(const LayerGraph& graph, int stages) {
  double total = 0;
  for (const Layer& l : graph.layers) total += l.forward_time + l.backward_time;
  Stages s;
  s.first.push_back(0);
  double sum = 0;
  for (int i = 0; i < graph.num_layers() && static_cast<int>(s.first.size()) < stages; ++i) {
    sum += graph.layers[i].forward_time + graph.layers[i].backward_time;
    const int remaining_layers = graph.num_layers() - (i + 1);
    const int remaining_stages = stages - static_cast<int>(s.first.size());
    if (sum >= total * s.first.size() / stages || remaining_layers == remaining_stages)
      s.first.push_back(i + 1);
  }
  s.first.push_back(graph.num_layers());
  return s;
}

struct StageCost {
  double time = 0;  // one micro-batch forward + backward on this stage (seconds)
  double params = 0, activations = 0;
  double boundary_bytes = 0;  // activation sent to the next stage
};

StageCost stage_cost(const LayerGraph& graph, int first, int end, double host) {
  StageCost c;
  double host_time = 0, device = 0;
  for (int i = first; i < end; ++i) {
    const Layer& l = graph.layers[i];
    device += (l.forward_time + l.backward_time) * 1e-3;
    host_time += host * ((l.forward_time > 0) + (l.backward_time > 0));
    c.params += l.parameter_bytes;
    c.activations += l.activation_bytes;
  }
  c.time = std::max(device, host_time);
  if (end > first) c.boundary_bytes = graph.layers[end - 1].activation_bytes;
  return c;
}

ParallelPlan plan_pipeline_split(const ParallelJob& job, int gpus, int p,
                                 const StrategyContext& context) {
  ParallelPlan plan = base_plan(gpus, Strategy::kPipeline, context.cluster);
  const int dp = gpus / p;
  plan.pp = p, plan.dp = dp;
  const int dp_batch = ceil_div(job.global_batch(), dp);
  // 1F1B wants several micro-batches per stage to shrink the bubble.
  plan.micro_batches = std::min(dp_batch, 4 * p);
  plan.per_gpu_batch = dp_batch;
  const int micro = ceil_div(dp_batch, plan.micro_batches);
  const auto graph = job.at_batch(micro);
  if (graph->num_layers() < p)
    return refuse(plan, PlanStatus::kNoPlacement, "more stages than layers");
  const Stages stages = balance_stages(*graph, p);
  const double host = context.constants.host_time_per_op(job.family());
  double slowest = 0, transfer = 0, params = 0, activations = 0;
  // Stages are laid out along the pipeline's GPUs, a server at a time.
  const GpuGroup pipe = pack_gpus(p, context.cluster.gpus_per_server);
  for (int s = 0; s < p; ++s) {
    const StageCost c = stage_cost(*graph, stages.first[s], stages.first[s + 1], host);
    slowest = std::max(slowest, c.time);
    params = std::max(params, c.params);
    activations = std::max(activations, c.activations);
    if (s + 1 < p) {
      const bool across = (s + 1) % pipe.per_server == 0;
      transfer = std::max(transfer, 2 * context.collectives.send(c.boundary_bytes, across));
    }
  }
  const double per_micro = slowest + transfer;
  const double pipeline_time = (plan.micro_batches + p - 1) * per_micro;
  const GpuGroup full = pack_gpus(gpus, context.cluster.gpus_per_server);
  const GpuGroup dp_group{dp, full.servers, std::max(1, full.per_server / p)};
  // The last stage's gradients cannot overlap the pipeline's drain.
  const double reduce = dp > 1 ? context.collectives.all_reduce(params, dp_group) : 0;
  const double stage_params = params / job.bytes_per_value();
  const double optimizer = optimizer_time(job, stage_params, weighted_layers(*graph) / p + 1,
                                          context.cluster.device.memory_bandwidth, host);
  plan.step_time = context.constants.host_per_step + pipeline_time + reduce + optimizer;
  plan.comp = plan.micro_batches * slowest + optimizer;
  plan.comm = plan.micro_batches * transfer + reduce;
  admit_memory(
      plan,
      stage_params * state_bytes_per_parameter(job) + std::min(plan.micro_batches, p) * activations,
      context);
  return plan;
}

}  // namespace

ParallelPlan plan_data(const ParallelJob& job, int gpus, const StrategyContext& context) {
  ParallelPlan plan = batch_split_plan(job, gpus, Strategy::kData, context.cluster);
  if (!plan.ok()) return plan;
  const auto graph = job.at_batch(plan.per_gpu_batch);
  const double host = context.constants.host_time_per_op(job.family());
  const GpuGroup group = pack_gpus(gpus, context.cluster.gpus_per_server);
  const std::vector<TimelineOp> ops = pass_ops(*graph, host, whole_layer);
  const auto buckets =
      gpus > 1
          ? gradient_buckets(
                *graph, gradient_ready_ops(*graph), whole_layer, context.constants.bucket_bytes,
                [&](double bytes) { return context.collectives.all_reduce(bytes, group); })
          : std::vector<TimelineCollective>{};
  const TimelineResult timeline = run_timeline(ops, buckets, context.constants.host_per_step,
                                               context.constants.overlap_slowdown);
  take_timing(plan, timeline,
              optimizer_time(job, job.parameters(), weighted_layers(*graph),
                             context.cluster.device.memory_bandwidth, host));
  admit_memory(
      plan,
      job.parameters() * state_bytes_per_parameter(job) + activation_bytes(*graph, whole_layer),
      context);
  return plan;
}

ParallelPlan plan_tensor(const ParallelJob& job, int gpus, const StrategyContext& context) {
  return plan_tensor_groups(job, gpus, gpus, Strategy::kTensor, context);
}

ParallelPlan plan_hybrid(const ParallelJob& job, int gpus, const StrategyContext& context) {
  // The widest tensor group that fits in one server and divides k and the
  // heads; the rest is data parallel.
  const TransformerShape& shape = job.transformer();
  const int limit = std::min(gpus / 2, context.cluster.gpus_per_server);
  for (int t = limit; t >= 2; --t)
    if (gpus % t == 0 && shape.heads % t == 0 && shape.hidden % t == 0)
      return plan_tensor_groups(job, gpus, t, Strategy::kHybrid, context);
  return refuse(base_plan(gpus, Strategy::kHybrid, context.cluster), PlanStatus::kNoPlacement,
                shape.layers ? "no tensor group of 2 or more inside a server divides the heads"
                             : "hybrid parallelism splits transformer blocks");
}

ParallelPlan plan_pipeline(const ParallelJob& job, int gpus, const StrategyContext& context) {
  if (gpus < 2)
    return refuse(base_plan(gpus, Strategy::kPipeline, context.cluster), PlanStatus::kNoPlacement,
                  "a pipeline needs 2 or more GPUs");
  // The fewest stages that fit in memory: more replicas, smaller bubble.
  ParallelPlan last;
  for (int p = 2; p <= gpus; ++p) {
    if (gpus % p != 0) continue;
    last = plan_pipeline_split(job, gpus, p, context);
    if (last.status != PlanStatus::kOom) return last;
  }
  return last;
}

}  // namespace pacml
