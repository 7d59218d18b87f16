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
