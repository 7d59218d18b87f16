// Trace records as jobs of the GPU replay (sim/gpu/replay.h): a model at
// its global batch (ElasticFlow's names stand for zoo configurations:
// doc/PHYSICAL.md §7.1) or a graph file, its iterations, deadline and
// requested GPUs. Every trace format maps here (ElasticFlow, SWF, sacct,
// squeue --json, pacml's decision log).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/beta_distribution.h"
#include "sim/gpu/replay.h"
#include "sim/trace/trace.h"

namespace pacml::gpu {

// The job a trace's (model, batch) stands for, one per pair (the replay's
// duration cache keys on it). ElasticFlow's names map to zoo stand-ins.
class JobKinds {
 public:
  // Throws InputError for a model pacml does not know or a batch it cannot
  // take. `shape` resizes a zoo transformer (0: the model's own).
  ParallelJobPtr get(const std::string& model, int batch, const TransformerShape& shape = {});
  // A profiled graph file (PipeDream or native YAML) measured at
  // `profiled_batch` samples, run at `batch` (0: the profiled batch).
  ParallelJobPtr get_graph(const std::string& path, int profiled_batch, int batch);

 private:
  std::map<std::string, ParallelJobPtr> kinds_;
};

// True for a model name a trace job may carry (a stand-in or a zoo model).
bool is_known_trace_model(const std::string& model);

// How trace records become GPU jobs (rules in sim/README.md, "The GPU
// replay"): the same model rules as the paper's replay (trace_workload.h),
// with zoo models and graph files costed by the physical model.
struct TraceMapping {
  // Trace name → zoo model (or ElasticFlow stand-in) or graph file.
  std::map<std::string, std::string> model_map;
  // A record whose model is unknown (or whose graph file cannot be read):
  // "reject" (InputError naming file:line), "skip" (counted), or a zoo model
  // or graph file to replay instead.
  std::string unknown_model = "reject";
  std::vector<std::string> models;  // for records without a model (model_for_record)
  long steps = 50;              // iterations of a record that gives neither steps nor iterations
  sim::BetaSpec fallback_beta;  // β of a record that gives no requirement at all
  std::uint64_t seed = 1;       // of the fallback β draws
  std::string base_dir = ".";   // relative graph files are found from here (paths.h)
};

struct MappingReport {
  long records = 0, jobs = 0, skipped = 0;
  std::map<std::string, long> skipped_by_reason;
  // "resnet50", "llama → gpt2" (--map or unknown_model), "(no model) → vgg16"
  std::map<std::string, long> jobs_by_model;
  // Where each job's deadline came from: "deadline", "beta", "time limit",
  // "fallback beta A" (kDeadlineFrom* below).
  std::map<std::string, long> deadline_from;
  long steps_fallback = 0;  // jobs that ran `steps` iterations for want of their own
};

// Each record becomes a job: its model (zoo model at the record's batch, else
// the zoo's; a graph file at kDefaultProfiledBatch, as the Slurm plugin costs
// it), iterations = the record's steps, else its iterations, else
// mapping.steps; GPUs requested = its
// workers; deadline = the record's, else submit + β × the job's one-GPU time
// (`estimator`), else submit + its time limit, else submit + a fallback β
// draw × one-GPU time. Records that cannot be replayed are skipped and counted
// by reason (unknown models as unknown_model says). Jobs come out in
// submission order (ties keep the trace's order). Throws InputError(file:line)
// for a rejected record, InputError(option) for a bad map/models/unknown_model
// target.
std::vector<Job> jobs_from_trace(const std::vector<sim::TraceRecord>& records,
                                 const TraceMapping& mapping, const PhysicalEstimator& estimator,
                                 MappingReport& report);

}  // namespace pacml::gpu
