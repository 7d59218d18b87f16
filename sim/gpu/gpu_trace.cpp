#include "sim/gpu/gpu_trace.h"

#include <algorithm>

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "sim/calibration/scaling_points.h"

namespace pacml::sim {
ParallelJobPtr JobKinds::get(const std::string& model, int batch, const TransformerShape& shape) {
  const std::string key = model + "/" + std::to_string(batch) + "/" + std::to_string(shape.layers) +
                          "x" + std::to_string(shape.hidden) + "x" + std::to_string(shape.heads);
  auto it = kinds_.find(key);
  if (it != kinds_.end()) return it->second;
  ZooOptions options;
  if (batch > 0) options.batch = batch;
  std::string zoo = model;
  if (const ZooStandIn* s = find_stand_in(model)) {
    zoo = s->zoo_model;
    if (s->seq_len) options.seq_len = s->seq_len;
    options.precision = s->precision;
  }
  if (shape.layers) options.layers = shape.layers;
  if (shape.hidden) options.hidden = shape.hidden;
  if (shape.heads) options.heads = shape.heads;
  return kinds_[key] = ParallelJob::from_zoo(zoo, options);
}

ParallelJobPtr JobKinds::get_graph(const std::string& path, int profiled_batch, int batch) {
  const std::string key =
      "graph:" + path + "/" + std::to_string(profiled_batch) + "/" + std::to_string(batch);
  auto it = kinds_.find(key);
  if (it != kinds_.end()) return it->second;
  return kinds_[key] = ParallelJob::from_graph(load_graph_file(path), profiled_batch, batch);
}

bool is_known_trace_model(const std::string& model) {
  return find_stand_in(model) || is_zoo_model(model);
}

std::vector<GpuJob> gpu_jobs_from_trace(const std::vector<TraceRecord>& records,
                                        GpuTraceReport& report) {
  JobKinds kinds;
  std::vector<GpuJob> jobs;
  auto skip = [&](const std::string& reason) {
    ++report.skipped, ++report.skipped_by_reason[reason];
  };
  for (const TraceRecord& r : records) {
    ++report.records;
    if (r.model.empty()) {
      skip("no model");
      continue;
    }
    if (!is_known_trace_model(r.model)) {
      skip("unknown model '" + r.model + "'");
      continue;
    }
    if (r.iterations < 1) {
      skip("no iterations");
      continue;
    }
    GpuJob job;
    try {
      job.work = kinds.get(r.model, r.batch);
    } catch (const InputError& e) {
      skip(std::string("model cannot take its batch: ") + e.what());
      continue;
    }
    job.id = r.id;
    job.source = r.source;
    job.submit = r.submit;
    job.deadline = std::isnan(r.deadline) ? INFINITY : r.deadline;
    job.iterations = r.iterations;
    job.requested = std::max(1, r.gpus);
    ++report.jobs_by_model[r.model];
    jobs.push_back(std::move(job));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const GpuJob& a, const GpuJob& b) { return a.submit < b.submit; });
  report.jobs = static_cast<long>(jobs.size());
  return jobs;
}

}  // namespace pacml::sim
