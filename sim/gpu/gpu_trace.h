// Trace records as jobs of the GPU replay (sim/gpu/gpu_replay.h): a model at
// its global batch (ElasticFlow's names stand for zoo configurations:
// doc/PHYSICAL.md §7.1), its iterations, deadline and requested GPUs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/gpu/gpu_replay.h"
#include "sim/trace/trace.h"

namespace pacml::sim {

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

struct GpuTraceReport {
  long records = 0, jobs = 0, skipped = 0;
  std::map<std::string, long> skipped_by_reason;
  std::map<std::string, long> jobs_by_model;
};

// Records without a model pacml knows, without iterations or with a batch
// the model cannot take are skipped and counted by reason. Jobs come out in
// submission order (ties keep the trace's order).
std::vector<GpuJob> gpu_jobs_from_trace(const std::vector<TraceRecord>& records,
                                        GpuTraceReport& report);

}  // namespace pacml::sim
