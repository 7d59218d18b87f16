#include "core/parallel/strategies.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/parallel/memory_model.h"
#include "core/parallel/replicated_step.h"
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

// Megatron's split of every block over t ranks: 1/t of the split layers'
// work, and the blocking activation all-reduces inside the tensor group.
RankWork tensor_work(const ParallelJob& job, int per_gpu_batch, int t,
                     const StrategyContext& context) {
  const TransformerShape& shape = job.transformer();
  RankWork work;
  work.tensor_degree = t;
  work.share = [t](const Layer& l) { return tensor_split_layer(l) ? 1.0 / t : 1.0; };
  // The tensor group sits inside one server when it fits in one.
  const GpuGroup tp_group = pack_gpus(t, context.cluster.gpus_per_server);
  const double act_bytes =
      static_cast<double>(per_gpu_batch) * shape.seq_len * shape.hidden * job.bytes_per_value();
  const double act_reduce = context.collectives.all_reduce(act_bytes, tp_group);
  work.hooks.after_forward = [act_reduce](const Layer& layer, std::vector<TimelineOp>& ops) {
    if (row_parallel(layer.name)) ops.push_back({0, act_reduce, true});
  };
  work.hooks.after_backward = [act_reduce](const Layer& layer, std::vector<TimelineOp>& ops) {
    if (column_parallel(layer.name)) ops.push_back({0, act_reduce, true});
  };
  return work;
}

// The step of one rank of a t-way tensor-parallel group, dp-way replicated
// and kept in step by `sync`.
ParallelPlan plan_tensor_groups(const ParallelJob& job, int gpus, int t, Strategy strategy,
                                ReplicaSync sync, const StrategyContext& context) {
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
  return plan_replicated(plan, job, tensor_work(job, plan.per_gpu_batch, t, context), sync,
                         context);
}

// The widest tensor group of 2 or more that fits in one server, leaves 2 or
// more replicas and divides k and the heads; 0 if there is none.
int server_tensor_degree(const ParallelJob& job, int gpus, const ClusterSpec& cluster) {
  const TransformerShape& shape = job.transformer();
  if (shape.layers == 0) return 0;
  for (int t = std::min(gpus / 2, cluster.gpus_per_server); t >= 2; --t)
    if (gpus % t == 0 && shape.heads % t == 0 && shape.hidden % t == 0) return t;
  return 0;
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
  double params = 0, activations = 0, temporary = 0;
  double boundary_bytes = 0;  // activation sent to the next stage
};

// Under checkpointing a stage runs its blocks' forward again in its backward.
StageCost stage_cost(const ParallelJob& job, const LayerGraph& graph, const LayerUnits& units,
                     int first, int end, double host) {
  StageCost c;
  double host_time = 0, device = 0;
  for (int i = first; i < end; ++i) {
    const Layer& l = graph.layers[i];
    const int passes = 2 + (job.checkpointing() && units.block[units.of_layer[i]]);
    device += (l.forward_time * (passes - 1) + l.backward_time) * 1e-3;
    host_time += host * ((l.forward_time > 0) * (passes - 1) + (l.backward_time > 0));
    c.params += l.parameter_bytes;
  }
  c.time = std::max(device, host_time);
  c.activations = saved_activations(graph, units, whole_layer, job.checkpointing(), first, end);
  c.temporary = largest_temporary(graph, whole_layer, first, end);
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
  const LayerUnits units = layer_units(*graph);
  const double host = context.constants.host_time_per_op(job.family());
  double slowest = 0, transfer = 0, params = 0, activations = 0, temporary = 0;
  // Stages are laid out along the pipeline's GPUs, a server at a time.
  const GpuGroup pipe = pack_gpus(p, context.cluster.gpus_per_server);
  for (int s = 0; s < p; ++s) {
    const StageCost c = stage_cost(job, *graph, units, stages.first[s], stages.first[s + 1], host);
    slowest = std::max(slowest, c.time);
    params = std::max(params, c.params);
    activations = std::max(activations, c.activations);
    temporary = std::max(temporary, c.temporary);
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
  // 1F1B keeps up to p micro-batches' activations in flight on the first stage.
  MemoryTerms memory = parameter_memory(job, RankLayout{stage_params}, context);
  memory.activations = std::min(plan.micro_batches, p) * activations;
  memory.temporary = temporary;
  admit_memory(plan, memory, context);
  return plan;
}

}  // namespace

ParallelPlan plan_data(const ParallelJob& job, int gpus, const StrategyContext& context) {
  ParallelPlan plan = batch_split_plan(job, gpus, Strategy::kData, context.cluster);
  if (!plan.ok()) return plan;
  return plan_replicated(plan, job, RankWork{}, ReplicaSync::kAllReduce, context);
}

ParallelPlan plan_zero1(const ParallelJob& job, int gpus, const StrategyContext& context) {
  if (gpus == 1) return one_gpu_plan(job, Strategy::kZero1, context);
  ParallelPlan plan = batch_split_plan(job, gpus, Strategy::kZero1, context.cluster);
  if (!plan.ok()) return plan;
  return plan_replicated(plan, job, RankWork{}, ReplicaSync::kZero1, context);
}

ParallelPlan plan_fsdp(const ParallelJob& job, int gpus, const StrategyContext& context) {
  if (gpus == 1) return one_gpu_plan(job, Strategy::kFsdp, context);
  ParallelPlan plan = batch_split_plan(job, gpus, Strategy::kFsdp, context.cluster);
  if (!plan.ok()) return plan;
  return plan_replicated(plan, job, RankWork{}, ReplicaSync::kFsdp, context);
}

ParallelPlan plan_tensor(const ParallelJob& job, int gpus, const StrategyContext& context) {
  // Tensor degree 1 splits nothing: the plain one-GPU plan.
  if (gpus == 1) return one_gpu_plan(job, Strategy::kTensor, context);
  return plan_tensor_groups(job, gpus, gpus, Strategy::kTensor, ReplicaSync::kAllReduce, context);
}

ParallelPlan plan_hybrid(const ParallelJob& job, int gpus, const StrategyContext& context) {
  // The rest of the GPUs are data parallel.
  if (const int t = server_tensor_degree(job, gpus, context.cluster))
    return plan_tensor_groups(job, gpus, t, Strategy::kHybrid, ReplicaSync::kAllReduce, context);
  return refuse(base_plan(gpus, Strategy::kHybrid, context.cluster), PlanStatus::kNoPlacement,
                job.transformer().layers
                    ? "no tensor group of 2 or more inside a server divides the heads"
                    : "hybrid parallelism splits transformer blocks");
}

ParallelPlan plan_fsdp_tensor(const ParallelJob& job, int gpus, const StrategyContext& context) {
  // The rest of the GPUs shard the tensor-parallel model copy.
  if (const int t = server_tensor_degree(job, gpus, context.cluster))
    return plan_tensor_groups(job, gpus, t, Strategy::kFsdpTensor, ReplicaSync::kFsdp, context);
  return refuse(base_plan(gpus, Strategy::kFsdpTensor, context.cluster), PlanStatus::kNoPlacement,
                job.transformer().layers
                    ? "no tensor group of 2 or more inside a server divides the heads"
                    : "fsdp-tensor splits transformer blocks");
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
