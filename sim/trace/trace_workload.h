// Mapping trace records to simulator jobs (rules documented in sim/README.md).
//
//  model   trace name → `model_map` entry (a zoo name, catalog name or graph
//          file) → else the name itself (zoo names and aliases: bert →
//          bert-base, inception3 → inception_v3). A name that matches no
//          graph follows `unknown_model`: "reject" (InputError naming
//          file:line, the default), "skip" (counted per name), or a graph
//          name to use instead (counted). Records without a model (SWF,
//          Slurm without a pacml comment) take models[FNV-1a(executable or
//          job id) mod |models|]; with no `models` they follow unknown_model.
//  arrival (submit − earliest submit) × time_scale  (profile units per trace second)
//  β       explicit pacml:beta in a Slurm comment wins; else by `beta_rule`:
//            work  (default) β = min(1, R / (duration × workers × gpu_scale))
//            slack β = min(1, R / duration)
//            distribution  ignore the trace, draw from the fallback β distribution
//          where R = deadline − submit (ElasticFlow) or the time limit (SWF
//          field 9, Slurm Timelimit). Without R or duration, the job draws
//          from the fallback β distribution (experiment `beta`, default A).
//  N       explicit pacml:steps wins; else by `steps_rule`:
//            auto (default) iterations if the trace has them, else work, else fixed
//            iterations  N = max(1, round(num_iteration × iteration_scale))
//            work        N = max(1, round(duration × workers × gpu_scale × time_scale / step time))
//                        (the job's sequential work equals the trace's worker-seconds)
//            fixed       N = steps
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/jct/estimator.h"
#include "sim/engine/beta_distribution.h"
#include "sim/engine/workload.h"
#include "sim/trace/trace.h"
#include "sim/workload/graph_catalog.h"

namespace pacml::sim {

struct TraceMapping {
  std::map<std::string, std::string> model_map;
  std::string unknown_model = "reject";  // reject | skip | GRAPH
  std::vector<std::string> models;       // pool for records without a model
  double time_scale = 1;
  double gpu_scale = 1;
  std::string beta_rule = "work";   // work | slack | distribution
  std::string steps_rule = "auto";  // auto | iterations | work | fixed
  double iteration_scale = 1;
  int steps = 50;
  long max_jobs = -1;          // first N jobs by submission (after skipping)
  std::string base_dir = ".";  // for graph files named in model_map/models

  // Throws InputError(where, ...) for an invalid rule or number.
  void validate(const std::string& where) const;
};

struct MappingReport {
  long jobs = 0;     // jobs in the workload
  long skipped = 0;  // records not replayed (mapping), by reason
  std::map<std::string, long> skipped_by_reason;
  std::map<std::string, long> mapped;  // "trace → graph" counts
  long beta_from_trace = 0, beta_fallback = 0;
  std::string describe() const;
};

// The model a record without one takes: models[FNV-1a(executable, else job
// id) mod |models|], so that one program always runs the same model. Both
// replays (this one and sim/gpu/trace.h) choose by it. `models` must not
// be empty.
const std::string& model_for_record(const std::vector<std::string>& models,
                                    const TraceRecord& record);

class TraceWorkload : public Workload {
 public:
  // Maps records; throws InputError(record.source, ...) for rejected records.
  TraceWorkload(std::vector<TraceRecord> records, const TraceMapping& mapping,
                GraphCatalog& catalog, const JctEstimator& estimator, BetaSpec fallback_beta,
                std::string name);

  std::unique_ptr<JobStream> start(std::uint64_t seed) const override;
  std::vector<JobGraphPtr> graphs() const override { return graphs_; }
  std::string beta_label() const override;
  std::string describe() const override;

  const MappingReport& report() const { return report_; }
  const std::vector<JobSpec>& jobs() const { return jobs_; }  // β NaN = fallback draw
  // The same jobs with another fallback β distribution.
  std::shared_ptr<TraceWorkload> with_fallback(BetaSpec beta) const;

 private:
  TraceWorkload() = default;
  std::vector<JobSpec> jobs_;
  std::vector<JobGraphPtr> graphs_;
  BetaSpec fallback_;
  MappingReport report_;
  std::string name_;
};

}  // namespace pacml::sim
