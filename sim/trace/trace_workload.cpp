#include "sim/trace/trace_workload.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "core/util/hash.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

// The traces' model choice was first written with FNV-1a's offset basis one
// digit short; it stays, so that a trace replays onto the same models.
constexpr std::uint64_t kTraceModelHashBasis = 1469598103934665603ULL;

class TraceStream : public JobStream {
 public:
  TraceStream(const std::vector<JobSpec>& jobs, const BetaSpec& fallback, std::uint64_t seed)
      : jobs_(jobs), rng_(seed), beta_(fallback, rng_) {}
  std::optional<JobSpec> next() override {
    if (i_ >= jobs_.size()) return std::nullopt;
    JobSpec spec = jobs_[i_++];
    if (std::isnan(spec.beta)) spec.beta = beta_.sample(rng_);
    return spec;
  }

 private:
  const std::vector<JobSpec>& jobs_;
  Rng rng_;
  BetaSampler beta_;
  size_t i_ = 0;
};

}  // namespace

const std::string& model_for_record(const std::vector<std::string>& models,
                                    const TraceRecord& record) {
  const std::string& key = record.executable.empty() ? record.id : record.executable;
  return models[fnv1a64(key, kTraceModelHashBasis) % models.size()];
}

void TraceMapping::validate(const std::string& where) const {
  if (!(time_scale > 0) || !std::isfinite(time_scale))
    throw InputError(where, "time_scale must be positive");
  if (!(gpu_scale > 0) || !std::isfinite(gpu_scale))
    throw InputError(where, "gpu_scale must be positive");
  if (!(iteration_scale > 0) || !std::isfinite(iteration_scale))
    throw InputError(where, "iteration_scale must be positive");
  if (steps < 1) throw InputError(where, "steps must be at least 1");
  if (beta_rule != "work" && beta_rule != "slack" && beta_rule != "distribution")
    throw InputError(where,
                     "beta_rule must be work, slack or distribution, got '" + beta_rule + "'");
  if (steps_rule != "auto" && steps_rule != "iterations" && steps_rule != "work" &&
      steps_rule != "fixed")
    throw InputError(
        where, "steps_rule must be auto, iterations, work or fixed, got '" + steps_rule + "'");
  if (unknown_model.empty())
    throw InputError(where, "unknown_model must be reject, skip or a graph name");
}

std::string MappingReport::describe() const {
  std::ostringstream out;
  out << jobs << " jobs replayed, " << skipped << " skipped";
  for (const auto& [reason, n] : skipped_by_reason) out << "\n  skipped " << n << ": " << reason;
  for (const auto& [pair, n] : mapped) out << "\n  " << pair << ": " << n;
  out << "\n  beta from the trace: " << beta_from_trace
      << ", drawn from the fallback distribution: " << beta_fallback;
  return out.str();
}

namespace {

// A model_map target, a models entry or unknown_model's graph: a graph file
// (relative to the mapping's base_dir) or a name the catalog knows.
class GraphResolver {
 public:
  GraphResolver(GraphCatalog& catalog, std::string base_dir)
      : catalog_(catalog), base_dir_(std::move(base_dir)) {}

  JobGraphPtr resolve(const std::string& target, const std::string& where) const {
    if (looks_like_path(target)) return catalog_.load_file(resolve_path(target, base_dir_, where));
    return catalog_.by_name(target, where);
  }
  // Null for a name that matches no graph.
  JobGraphPtr try_resolve(const std::string& target, const std::string& where) const {
    try {
      return resolve(target, where);
    } catch (const InputError&) {
      if (looks_like_path(target)) throw;  // a missing graph file is a configuration error
      return nullptr;
    }
  }

 private:
  GraphCatalog& catalog_;
  std::string base_dir_;
};

// A record's graph and its "trace → graph" label for the mapping report.
struct MappedGraph {
  JobGraphPtr graph;
  std::string label;
};

// The graph of the record's model (or, without one, of the models pool); a
// null graph when it matches none.
MappedGraph map_model(const TraceRecord& r, const TraceMapping& mapping,
                      const GraphResolver& graphs) {
  MappedGraph mapped;
  const std::string& name = r.model;
  if (name.empty() && !mapping.models.empty()) {
    mapped.graph = graphs.resolve(model_for_record(mapping.models, r), "models");
    mapped.label = "(no model) → " + mapped.graph->name();
  } else if (!name.empty()) {
    auto it = mapping.model_map.find(name);
    const std::string target = it != mapping.model_map.end() ? it->second : name;
    mapped.graph = it != mapping.model_map.end() ? graphs.resolve(target, "model_map." + name)
                                                 : graphs.try_resolve(target, r.source);
    if (mapped.graph) mapped.label = name + " → " + mapped.graph->name();
  }
  return mapped;
}

// unknown_model's answer for a record map_model found no graph for: reject
// (throws), skip (a null graph, counted in `report`) or the graph it names.
MappedGraph map_unknown_model(const TraceRecord& r, const TraceMapping& mapping,
                              const GraphResolver& graphs, MappingReport& report) {
  const std::string& name = r.model;
  const std::string what = name.empty() ? "a job without a model" : "unknown model '" + name + "'";
  if (mapping.unknown_model == "reject")
    throw InputError(r.source,
                     what +
                         " (map it with model_map / --map NAME=GRAPH, or set unknown_model to "
                         "skip or to a graph name)");
  if (mapping.unknown_model == "skip") {
    ++report.skipped;
    ++report.skipped_by_reason[what];
    return {};
  }
  MappedGraph mapped;
  mapped.graph = graphs.resolve(mapping.unknown_model, "unknown_model");
  mapped.label = (name.empty() ? std::string("(no model)") : name) + " → " + mapped.graph->name() +
                 " (unknown_model)";
  return mapped;
}

// β by the mapping's beta_rule; NaN when the trace does not give it (the
// fallback distribution draws it).
double trace_beta(const TraceRecord& r, const TraceMapping& mapping, double workers) {
  double beta = r.beta;
  if (std::isnan(beta) && mapping.beta_rule != "distribution") {
    const double requirement = !std::isnan(r.deadline) ? r.deadline - r.submit : r.time_limit;
    if (!std::isnan(requirement) && !std::isnan(r.duration) && requirement > 0) {
      const double base = mapping.beta_rule == "work" ? r.duration * workers : r.duration;
      beta = base > 0 ? std::min(1.0, requirement / base) : 1.0;
    }
  }
  return beta;
}

// N by the mapping's steps_rule, in [1, 1e9].
int trace_steps(const TraceRecord& r, const TraceMapping& mapping, double workers,
                double step_time) {
  long steps = r.steps;
  std::string rule = mapping.steps_rule;
  if (rule == "auto")
    rule = r.iterations > 0 ? "iterations" : !std::isnan(r.duration) ? "work" : "fixed";
  if (steps < 1) {
    if (rule == "iterations" && r.iterations > 0)
      steps = std::lround(r.iterations * mapping.iteration_scale);
    else if (rule == "work" && !std::isnan(r.duration) && step_time > 0)
      steps = std::lround(r.duration * workers * mapping.time_scale / step_time);
    else
      steps = mapping.steps;
  }
  return static_cast<int>(std::clamp<long>(steps, 1, 1000000000L));
}

// The simulator's job for a record: arrival from the trace's first
// submission (`origin`), β and N by the mapping's rules.
JobSpec trace_job(const TraceRecord& r, const TraceMapping& mapping, JobGraphPtr graph,
                  double origin, const JctEstimator& estimator) {
  JobSpec spec;
  spec.arrival = (r.submit - origin) * mapping.time_scale;
  spec.id = r.id;
  spec.source = r.source;
  const double workers = std::max(1.0, r.gpus * mapping.gpu_scale);
  spec.beta = trace_beta(r, mapping, workers);
  const double step_time = estimator.sequential_jct(*graph) / estimator.steps();
  spec.steps = trace_steps(r, mapping, workers, step_time);
  spec.graph = std::move(graph);
  return spec;
}

}  // namespace

TraceWorkload::TraceWorkload(std::vector<TraceRecord> records, const TraceMapping& mapping,
                             GraphCatalog& catalog, const JctEstimator& estimator,
                             BetaSpec fallback_beta, std::string name)
    : fallback_(fallback_beta), name_(std::move(name)) {
  mapping.validate("trace mapping");
  std::stable_sort(records.begin(), records.end(),
                   [](const TraceRecord& a, const TraceRecord& b) { return a.submit < b.submit; });
  const GraphResolver graphs(catalog, mapping.base_dir);
  std::set<const JobGraph*> seen;
  const double origin = records.empty() ? 0 : records.front().submit;
  for (const TraceRecord& r : records) {
    if (mapping.max_jobs >= 0 && static_cast<long>(jobs_.size()) >= mapping.max_jobs) break;
    MappedGraph mapped = map_model(r, mapping, graphs);
    if (!mapped.graph) mapped = map_unknown_model(r, mapping, graphs, report_);
    if (!mapped.graph) continue;  // unknown_model skip
    ++report_.mapped[mapped.label];
    if (seen.insert(mapped.graph.get()).second) graphs_.push_back(mapped.graph);
    jobs_.push_back(trace_job(r, mapping, mapped.graph, origin, estimator));
    if (std::isnan(jobs_.back().beta))
      ++report_.beta_fallback;
    else
      ++report_.beta_from_trace;
  }
  report_.jobs = static_cast<long>(jobs_.size());
}

std::shared_ptr<TraceWorkload> TraceWorkload::with_fallback(BetaSpec beta) const {
  std::shared_ptr<TraceWorkload> copy(new TraceWorkload());
  copy->jobs_ = jobs_;
  copy->graphs_ = graphs_;
  copy->fallback_ = beta;
  copy->report_ = report_;
  copy->name_ = name_;
  return copy;
}

std::unique_ptr<JobStream> TraceWorkload::start(std::uint64_t seed) const {
  return std::make_unique<TraceStream>(jobs_, fallback_, seed);
}

std::string TraceWorkload::beta_label() const {
  return report_.beta_fallback == 0 ? "trace" : "trace+" + fallback_.label();
}

std::string TraceWorkload::describe() const {
  std::ostringstream out;
  out << "trace " << name_ << ": " << jobs_.size() << " jobs, " << graphs_.size() << " graphs";
  return out.str();
}

}  // namespace pacml::sim
