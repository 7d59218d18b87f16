#include "sim/gpu/trace.h"

#include <algorithm>

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "sim/calibration/scaling_points.h"
#include "sim/trace/trace_workload.h"
#include "sim/workload/paths.h"

namespace pacml::gpu {
ParallelJobPtr JobKinds::get(const std::string& model, int batch, const TransformerShape& shape) {
  const std::string key = model + "/" + std::to_string(batch) + "/" + std::to_string(shape.layers) +
                          "x" + std::to_string(shape.hidden) + "x" + std::to_string(shape.heads);
  auto it = kinds_.find(key);
  if (it != kinds_.end()) return it->second;
  ZooOptions options;
  // Traces and the workloads fitted to them (contrib/workloads) record
  // 2019-2021 clusters, whose PyTorch ran eager attention: every job kind
  // keeps it, whether a stand-in or a zoo model named directly.
  options.attention = Attention::kEager;
  std::string zoo = model;
  if (const sim::ZooStandIn* s = sim::find_stand_in(model)) {
    zoo = s->zoo_model;
    options = s->options();
  }
  if (batch > 0) options.batch = batch;
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
  return sim::find_stand_in(model) || is_zoo_model(model);
}

namespace {

// One trace's records to jobs: the model, iterations and deadline of each,
// with the counts of trace.h's report.
class RecordMapper {
 public:
  RecordMapper(const TraceMapping& mapping, const PhysicalEstimator& estimator,
               MappingReport& report)
      : mapping_(mapping),
        estimator_(estimator),
        report_(report),
        rng_(mapping.seed),
        fallback_(mapping.fallback_beta, rng_) {
    check_targets();
  }

  // The job of `r`, or false when it is skipped (and counted).
  bool map(const sim::TraceRecord& r, Job& job) {
    std::string label;
    job.work = work_of(r, label);
    if (!job.work) return false;
    job.id = r.id;
    job.source = r.source;
    job.submit = r.submit;
    job.iterations = iterations_of(r);
    job.requested = std::max(1, r.gpus);
    job.deadline = deadline_of(r, *job.work, job.iterations);
    ++report_.jobs_by_model[label];
    return true;
  }

  void skip(const std::string& reason) { ++report_.skipped, ++report_.skipped_by_reason[reason]; }

 private:
  // The targets the user named (--map, --models, --unknown-model) are checked
  // before any record: an error in one is a configuration error, named by
  // its option, even when no record needs it.
  void check_targets() {
    auto check = [&](const std::string& target, const std::string& where) {
      if (sim::looks_like_path(target))
        kinds_.get_graph(sim::resolve_path(target, mapping_.base_dir, where), kDefaultProfiledBatch,
                         0);
      else if (!is_known_trace_model(target))
        throw InputError(where, "unknown model '" + target +
                                    "' (a zoo model, as pacml graph zoo lists, or a graph file)");
    };
    for (const auto& [name, target] : mapping_.model_map) check(target, "model_map." + name);
    for (const std::string& target : mapping_.models) check(target, "models");
    if (mapping_.unknown_model != "reject" && mapping_.unknown_model != "skip")
      check(mapping_.unknown_model, "unknown_model");
  }

  // A checked target: a graph file (run at the batch it was measured at) or a
  // zoo model at the record's batch (0: the zoo's); nullptr (counted) for a
  // batch the model cannot take.
  ParallelJobPtr build(const std::string& target, const sim::TraceRecord& r,
                       const std::string& where) {
    if (sim::looks_like_path(target))
      return kinds_.get_graph(sim::resolve_path(target, mapping_.base_dir, where),
                              kDefaultProfiledBatch, 0);
    try {
      return kinds_.get(target, r.batch);
    } catch (const InputError& e) {
      skip(std::string("model cannot take its batch: ") + e.what());
      return nullptr;
    }
  }

  ParallelJobPtr work_of(const sim::TraceRecord& r, std::string& label) {
    if (r.model.empty()) {
      if (mapping_.models.empty()) return unknown(r, "a job without a model", "", label);
      const std::string& pick = sim::model_for_record(mapping_.models, r);
      label = "(no model) → " + pick;
      return build(pick, r, "models");
    }
    auto it = mapping_.model_map.find(r.model);
    if (it != mapping_.model_map.end()) {
      label = r.model + " → " + it->second;
      return build(it->second, r, "model_map." + r.model);
    }
    label = r.model;
    if (sim::looks_like_path(r.model)) {
      try {
        return build(r.model, r, r.source);
      } catch (const InputError& e) {
        // A history names graph files of the machine it was taken on.
        return unknown(r, "unreadable graph file '" + r.model + "'", e.what(), label);
      }
    }
    if (!is_known_trace_model(r.model))
      return unknown(r, "unknown model '" + r.model + "'", "", label);
    return build(r.model, r, r.source);
  }

  // A record whose model cannot be replayed, as unknown_model says; `detail`
  // is the reader's error, for the message.
  ParallelJobPtr unknown(const sim::TraceRecord& r, const std::string& what,
                         const std::string& detail, std::string& label) {
    if (mapping_.unknown_model == "reject")
      throw InputError(r.source, what + (detail.empty() ? "" : " (" + detail + ")") +
                                     "; map it with --map NAME=MODEL, or give --unknown-model "
                                     "skip or a model to replay instead");
    if (mapping_.unknown_model == "skip") {
      skip(what);
      return nullptr;
    }
    label = (r.model.empty() ? std::string("(no model)") : r.model) + " → " +
            mapping_.unknown_model + " (unknown_model)";
    return build(mapping_.unknown_model, r, "unknown_model");
  }

  long iterations_of(const sim::TraceRecord& r) {
    if (r.steps >= 1) return r.steps;
    if (r.iterations >= 1) return r.iterations;
    ++report_.steps_fallback;
    return mapping_.steps;
  }

  // The plugin's order (plugin/engine.cpp set_requirement): a deadline, else
  // β of the one-GPU time, else the time limit; the trace replay's fallback
  // β draw last.
  double deadline_of(const sim::TraceRecord& r, const ParallelJob& work, long iterations) {
    if (!std::isnan(r.deadline)) return counted("deadline", r.deadline);
    const double one_gpu = static_cast<double>(iterations) * one_gpu_step(work);
    if (!std::isnan(r.beta)) return counted("beta", r.submit + r.beta * one_gpu);
    if (!std::isnan(r.time_limit)) return counted("time limit", r.submit + r.time_limit);
    return counted("fallback beta " + mapping_.fallback_beta.label(),
                   r.submit + fallback_.sample(rng_) * one_gpu);
  }

  double counted(const std::string& from, double deadline) {
    ++report_.deadline_from[from];
    return deadline;
  }

  double one_gpu_step(const ParallelJob& work) {
    auto it = one_gpu_.find(&work);
    if (it != one_gpu_.end()) return it->second;
    return one_gpu_[&work] = estimator_.single_gpu_step_time(work);
  }

  const TraceMapping& mapping_;
  const PhysicalEstimator& estimator_;
  MappingReport& report_;
  JobKinds kinds_;  // a cache: a graph file target checked up front is loaded once
  Rng rng_;
  sim::BetaSampler fallback_;
  std::map<const ParallelJob*, double> one_gpu_;  // the kinds_ keep the jobs alive
};

}  // namespace

std::vector<Job> jobs_from_trace(const std::vector<sim::TraceRecord>& records,
                                 const TraceMapping& mapping, const PhysicalEstimator& estimator,
                                 MappingReport& report) {
  RecordMapper mapper(mapping, estimator, report);
  std::vector<Job> jobs;
  for (const sim::TraceRecord& r : records) {
    ++report.records;
    Job job;
    if (mapper.map(r, job)) jobs.push_back(std::move(job));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return a.submit < b.submit; });
  report.jobs = static_cast<long>(jobs.size());
  return jobs;
}

}  // namespace pacml::gpu
