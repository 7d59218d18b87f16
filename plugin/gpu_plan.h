// The GPU plan of a job on a GPU cluster (plugin/README.md, "GPU cluster"),
// in the forms Slurm and the job see it. Plain C++ with no core/ and no Slurm
// types, because both plugins link it: job_submit/pacml writes the plan, the
// SPANK plugin reads it back inside the job.
//
//   * request_shape: k GPUs on G-GPU nodes → what pacml asks Slurm for;
//   * the annotation "pacml-plan:gpus=6,nodes=2,..." job_submit stores in
//     the job's AdminComment (where the SPANK plugin finds it again);
//   * the PACML_* variables a batch script, srun and salloc step see, and
//     the task count salloc's interactive step gets.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pacml::plugin {

// GPUs in a node's GRES text as Slurm prints it ("gpu:4", "gpu:a100:4(S:0-1)",
// "gpu:2(IDX:0-1),mps:100", "(null)"): the sum over gpu entries; 0 if none.
int gres_gpu_count(const std::string& gres);

// A TRES request as a job_desc holds it ("gres:gpu:4,gres:nvme:1", or with
// "gres/" as later Slurm releases write it) without its GPU entries: what
// pacml keeps of the user's other GRES (nvme, mps, …) when it replaces the
// GPUs. Entries are kept in their order, as written.
std::string without_gpu_entries(const std::string& tres);

// How k GPUs on nodes of G GPUs are asked of Slurm's cons_tres: ⌈k/G⌉ nodes,
// one task per GPU. A job that fills its nodes (k a multiple of G) gets them
// exclusively with gres/gpu:G per node and G tasks per node; any other job
// asks for one GPU per task (tres_per_task) and leaves the rest of its last
// node to other jobs, so two 2-GPU jobs share a 4-GPU node.
struct RequestShape {
  int gpus = 0;
  int nodes = 0;
  int gpus_per_node = 0;  // on the fullest node: min(k, G)
  bool whole_nodes = false;
};
RequestShape request_shape(int gpus, int gpus_per_node);

struct GpuPlan {
  int gpus = 0, nodes = 0, gpus_per_node = 0;
  std::string strategy;  // data, tensor, hybrid, pipeline
  int tp = 1, pp = 1, dp = 1;
  double jct_s = 0;              // predicted JCT
  std::optional<long> deadline;  // epoch seconds, when the job gave one
  std::string policy;            // the GPU policy that chose k (for people)
  std::string decision;          // decision id
};

constexpr const char* kPlanTag = "pacml-plan:";

// "pacml-plan:gpus=6,nodes=2,gpus_per_node=4,strategy=data,tp=1,pp=1,dp=6,
// jct=813,deadline=1764633600,policy=min_feasible,decision=ID" (one word, no
// blanks; jct in whole seconds, rounded up).
std::string format_plan(const GpuPlan& plan);
// The plan in a comment holding other words too; nullopt if there is none or
// it is malformed (the SPANK plugin then sets nothing rather than guess).
std::optional<GpuPlan> parse_plan(const std::string& comment);

// "PACML_GPUS=6", "PACML_NODES=2", … in a fixed order.
std::vector<std::pair<std::string, std::string>> plan_environment(const GpuPlan& plan);

// What salloc's interactive step (its shell on the first node) gets besides:
// SLURM_NTASKS and SLURM_NPROCS = k, the job's task count (one per GPU), so
// that srun without -n starts k ranks there as it does in a batch script.
std::vector<std::pair<std::string, std::string>> interactive_step_environment(const GpuPlan& plan);

}  // namespace pacml::plugin
