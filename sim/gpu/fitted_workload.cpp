#include "sim/gpu/fitted_workload.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/config/bound_settings.h"
#include "core/policy/policy.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/statistics.h"
#include "core/util/yaml_input.h"
#include "sim/gpu/trace.h"
#include "sim/workload/paths.h"

namespace pacml::gpu {
namespace {

constexpr int kFormatVersion = 1;
constexpr long kMaxIterations = 1'000'000'000'000;
constexpr double kHour = 3600, kDay = 86400;

void fit_arrivals(const std::vector<const sim::TraceRecord*>& jobs, FittedWorkload& w) {
  double first = INFINITY, last = -INFINITY;
  std::vector<double> counts(24, 0);
  for (const sim::TraceRecord* r : jobs) {
    first = std::min(first, r->submit);
    last = std::max(last, r->submit);
    counts[static_cast<long>(std::floor(r->submit / kHour)) % 24] += 1;
  }
  // Each hour of the day occurs once per day of the span (at least once).
  const double days = std::max(1.0, (last - first) / kDay);
  w.arrivals_per_hour.clear();
  for (double c : counts) w.arrivals_per_hour.push_back(c / days);
}

void fit_shares(const std::vector<const sim::TraceRecord*>& jobs, FittedWorkload& w) {
  std::map<std::pair<std::string, int>, long> models;
  std::map<int, long> gpus;
  for (const sim::TraceRecord* r : jobs) ++models[{r->model, r->batch}], ++gpus[r->gpus];
  const double n = static_cast<double>(jobs.size());
  for (const auto& [key, count] : models) {
    ModelShare share;
    share.model = key.first, share.batch = key.second, share.share = count / n;
    w.models.push_back(share);
  }
  for (const auto& [g, count] : gpus) w.gpus[g] = count / n;
}

void fit_iterations(const std::vector<const sim::TraceRecord*>& jobs, FittedWorkload& w) {
  double sum = 0, squares = 0;
  w.min_iterations = jobs.front()->iterations, w.max_iterations = jobs.front()->iterations;
  for (const sim::TraceRecord* r : jobs) {
    const double x = std::log(static_cast<double>(r->iterations));
    sum += x, squares += x * x;
    w.min_iterations = std::min(w.min_iterations, r->iterations);
    w.max_iterations = std::max(w.max_iterations, r->iterations);
  }
  const double n = static_cast<double>(jobs.size());
  w.log_iterations_mean = sum / n;
  w.log_iterations_sd =
      std::sqrt(std::max(0.0, squares / n - w.log_iterations_mean * w.log_iterations_mean));
}

void fit_slack(const std::vector<const sim::TraceRecord*>& jobs, FittedWorkload& w) {
  std::vector<double> slack;
  for (const sim::TraceRecord* r : jobs)
    if (r->duration > 0 && r->deadline > r->submit)
      slack.push_back((r->deadline - r->submit) / r->duration);
  if (slack.empty()) return;  // keep ElasticFlow's [0.5, 1.5]
  // The 1st and 99th percentiles: a few odd jobs do not stretch the range.
  w.slack_min = quantile(slack, 0.01);
  w.slack_max = std::max(w.slack_min, quantile(slack, 0.99));
}

// ---- reading -------------------------------------------------------------------

using T = SettingType;

// A transformer's size read into share.shape; 0 (absent) is the model's own,
// which a file cannot write, so these document no default.
BoundSettings<ModelShare>::Binding shape_key(const char* name, int TransformerShape::*size,
                                             const char* meaning) {
  return bind_with<ModelShare>(SettingKey(name, T::kInteger, meaning).range(1, 1 << 20),
                               [name, size](const SettingsTable& keys, const YAML::Node& m,
                                            const std::string& source, ModelShare& share) {
                                 share.shape.*size =
                                     static_cast<int>(keys.integer(m, source, name));
                               });
}

const BoundSettings<ModelShare>& model_keys() {
  static const ModelShare d;
  static const BoundSettings<ModelShare> keys(
      "model entry key",
      {bind(SettingKey("model", T::kText,
                       "a zoo or ElasticFlow model name (required unless graph; with graph, its "
                       "name in tables)"),
            &ModelShare::model, d),
       bind_with<ModelShare>(
           SettingKey("graph", T::kText,
                      "a profiled graph file (PipeDream or native) instead of a zoo model; "
                      "relative to this file, ${VAR} expanded"),
           [](const SettingsTable& keys, const YAML::Node& m, const std::string& source,
              ModelShare& share) {
             std::string path = sim::expand_variables(keys.text(m, source, "graph"),
                                                      yaml_where(source, m["graph"]));
             if (!path.empty() && path[0] != '/') path = sim::directory_of(source) + "/" + path;
             share.graph = path;
           }),
       bind(SettingKey("profiled_batch", T::kInteger, "with graph: the batch it was profiled at")
                .range(1, 1 << 24),
            &ModelShare::profiled_batch, d),
       required(bind(SettingKey("batch", T::kInteger, "global batch (required)").range(1, 1 << 24),
                     &ModelShare::batch, d)),
       required(
           bind(SettingKey("share", T::kNumber, "share of jobs (the shares add up to 1; required)")
                    .range(0, 1),
                &ModelShare::share, d)),
       shape_key("layers", &TransformerShape::layers, "zoo transformers: number of blocks"),
       shape_key("hidden", &TransformerShape::hidden, "zoo transformers: hidden size"),
       shape_key("heads", &TransformerShape::heads, "zoo transformers: attention heads")});
  return keys;
}

// A zoo entry: a known model, and a resized transformer must build (the
// zoo's message, e.g. hidden not a multiple of heads, at the entry's line).
void check_zoo_entry(const YAML::Node& m, const std::string& source, const ModelShare& share) {
  if (!m["model"]) throw InputError(yaml_where(source, m), "missing 'model'");
  if (!is_known_trace_model(share.model))
    throw InputError(yaml_where(source, m["model"]), "unknown model '" + share.model + "'");
  if (!share.shape.layers && !share.shape.hidden && !share.shape.heads) return;
  try {
    JobKinds().get(share.model, share.batch, share.shape);
  } catch (const InputError& e) {
    throw InputError(yaml_where(source, m), e.what());
  }
}

// A profiled graph entry: named by its path unless `model` says otherwise,
// and the file must load (its error at the entry's line).
void check_graph_entry(const YAML::Node& m, const std::string& source, ModelShare& share) {
  if (m["layers"] || m["hidden"] || m["heads"])
    throw InputError(yaml_where(source, m), "layers/hidden/heads resize zoo models, not graphs");
  if (!m["model"]) share.model = share.graph;
  try {
    JobKinds().get_graph(share.graph, share.profiled_batch, share.batch);
  } catch (const InputError& e) {
    throw InputError(yaml_where(source, m["graph"]), e.what());
  }
}

void require_shares(double total, const std::string& where, const std::string& what) {
  if (std::abs(total - 1) > 1e-3)
    throw InputError(where, what + " shares must add up to 1, got " + std::to_string(total));
}

void read_arrivals(const YAML::Node& root, const std::string& source, FittedWorkload& w) {
  const YAML::Node rates = root["arrivals_per_hour"];
  if (!rates || !rates.IsSequence() || rates.size() != 24)
    throw InputError(yaml_where(source, rates ? rates : root),
                     "arrivals_per_hour must list 24 rates (jobs per hour, by hour of day)");
  w.arrivals_per_hour = fitted_params_settings().numbers(root, source, "arrivals_per_hour");
  if (*std::max_element(w.arrivals_per_hour.begin(), w.arrivals_per_hour.end()) <= 0)
    throw InputError(yaml_where(source, rates), "every arrival rate is 0");
}

void read_models(const YAML::Node& root, const std::string& source, FittedWorkload& w) {
  const BoundSettings<ModelShare>& keys = model_keys();
  const YAML::Node models = root["models"];
  if (!models || !models.IsSequence() || models.size() == 0)
    throw InputError(yaml_where(source, models ? models : root), "models must list the mix");
  double total = 0;
  for (const YAML::Node& m : models) {
    keys.table().check_known(m, source);
    ModelShare share;
    keys.read(m, source, share);
    if (m["graph"])
      check_graph_entry(m, source, share);
    else
      check_zoo_entry(m, source, share);
    total += share.share;
    w.models.push_back(share);
  }
  require_shares(total, yaml_where(source, models), "model");
}

// The keys of `iterations:`, all required.
const BoundSettings<FittedWorkload>& iterations_keys() {
  static const FittedWorkload d;
  static const BoundSettings<FittedWorkload> keys(
      "iterations key",
      {required(bind(
           SettingKey("log_mean", T::kNumber, "mean of ln(iterations) (required)").range(0, 40),
           &FittedWorkload::log_iterations_mean, d)),
       required(
           bind(SettingKey("log_sd", T::kNumber, "standard deviation of ln(iterations) (required)")
                    .range(0, 10),
                &FittedWorkload::log_iterations_sd, d)),
       required(bind(SettingKey("min", T::kInteger, "fewest iterations drawn (required)")
                         .range(1, kMaxIterations),
                     &FittedWorkload::min_iterations, d)),
       required(bind(SettingKey("max", T::kInteger, "most iterations drawn (required)")
                         .range(1, kMaxIterations),
                     &FittedWorkload::max_iterations, d))});
  return keys;
}

void read_iterations(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                     FittedWorkload& w) {
  const YAML::Node it = keys.mapping(root, source, "iterations");
  iterations_keys().table().check_known(it, source);
  iterations_keys().read(it, source, w);
  if (w.max_iterations < w.min_iterations)
    throw InputError(yaml_where(source, it), "iterations max is below min");
}

void read_gpus(const YAML::Node& root, const std::string& source, FittedWorkload& w) {
  const SettingKey& key = fitted_params_settings().key("gpus");
  const YAML::Node gpus = fitted_params_settings().mapping(root, source, "gpus");
  double total = 0;
  for (const auto& kv : gpus) {
    const int g = static_cast<int>(
        parse_integer(kv.first.Scalar(), 1, 1 << 20, yaml_where(source, kv.first), "GPU count"));
    w.gpus[g] = yaml_number(kv.second, source, "gpus share", key.min, key.max);
    total += w.gpus[g];
  }
  require_shares(total, yaml_where(source, gpus), "gpus");
}

// The keys of `slack:`: given, it says both bounds.
const BoundSettings<FittedWorkload>& slack_keys() {
  static const FittedWorkload d;
  static const BoundSettings<FittedWorkload> keys(
      "slack key",
      {required(bind(SettingKey("min", T::kNumber, "lowest slack (required)").range(0.01, 1000),
                     &FittedWorkload::slack_min, d)),
       required(bind(SettingKey("max", T::kNumber, "highest slack (required)").range(0.01, 1000),
                     &FittedWorkload::slack_max, d))});
  return keys;
}

void read_slack(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                FittedWorkload& w) {
  const YAML::Node slack = keys.mapping(root, source, "slack");
  slack_keys().table().check_known(slack, source);
  slack_keys().read(slack, source, w);
  if (w.slack_max < w.slack_min)
    throw InputError(yaml_where(source, slack["max"]), "slack max is below min");
}

void read_version(const SettingsTable& keys, const YAML::Node& root, const std::string& source,
                  FittedWorkload&) {
  if (!root["pacml_workload"] || keys.integer(root, source, "pacml_workload") != kFormatVersion)
    throw InputError(source, "missing or unsupported 'pacml_workload: 1'");
}

// A reader of the file's keys from one of the functions above.
BoundSettings<FittedWorkload>::Reader with_root(void (*read)(const YAML::Node&, const std::string&,
                                                             FittedWorkload&)) {
  return [read](const SettingsTable&, const YAML::Node& root, const std::string& source,
                FittedWorkload& w) { read(root, source, w); };
}

const BoundSettings<FittedWorkload>& params_keys() {
  static const FittedWorkload d;
  static const BoundSettings<FittedWorkload> keys(
      "fitted workload file key",
      {bind_with<FittedWorkload>(
           SettingKey("pacml_workload", T::kInteger, "format version: 1 (required)").range(1, 1000),
           read_version),
       bind(SettingKey("source", T::kText, "the traces it was fitted to (free text)"),
            &FittedWorkload::source, d),
       bind(SettingKey("jobs_fitted", T::kInteger, "how many trace jobs the fit saw")
                .range(0, kMaxIterations),
            &FittedWorkload::jobs_fitted, d),
       bind_with<FittedWorkload>(
           SettingKey("arrivals_per_hour", T::kList,
                      "24 arrival rates, one per hour of the day, from 00:00 (required)")
               .range(0, 1e7, "jobs/hour"),
           with_root(read_arrivals)),
       bind_with<FittedWorkload>(
           SettingKey("models", T::kList,
                      "the model mix: entries of the table `workload.params.model` (required)"),
           with_root(read_models)),
       required(bind_with<FittedWorkload>(
           SettingKey("iterations", T::kMapping,
                      "training length: table `workload.params.iterations` (required)"),
           read_iterations)),
       required(bind_with<FittedWorkload>(
           SettingKey("gpus", T::kMapping,
                      "the requested GPU counts: count: share, shares adding up to 1 (required)")
               .range(0, 1),
           with_root(read_gpus))),
       bind_with<FittedWorkload>(
           SettingKey("slack", T::kMapping,
                      "deadline = submission + slack x duration on the requested GPUs, slack "
                      "uniform in [min, max]: table `workload.params.slack`")
               .defaults_to("[" + default_text_of(d.slack_min) + ", " +
                            default_text_of(d.slack_max) + "]"),
           read_slack)});
  return keys;
}

FittedWorkload from_yaml(const YAML::Node& root, const std::string& source) {
  const BoundSettings<FittedWorkload>& keys = params_keys();
  keys.table().check_known(root, source);
  FittedWorkload w;
  // The version first (the read loop checks it again), then the two keys
  // that, absent, throw their own messages (24 rates; the mix).
  read_version(keys.table(), root, source, w);
  if (!root["arrivals_per_hour"]) read_arrivals(root, source, w);
  if (!root["models"]) read_models(root, source, w);
  keys.read(root, source, w);
  return w;
}

}  // namespace

const SettingsTable& fitted_params_settings() {
  return params_keys().table();
}

const SettingsTable& fitted_model_settings() {
  return model_keys().table();
}

const SettingsTable& fitted_iterations_settings() {
  return iterations_keys().table();
}

const SettingsTable& fitted_slack_settings() {
  return slack_keys().table();
}

namespace {

// ---- drawing ---------------------------------------------------------------------

double uniform(Rng& rng) {
  return (rng.next() >> 11) * 0x1.0p-53;
}

double normal(Rng& rng) {
  const double u = std::max(uniform(rng), 1e-300), v = uniform(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

template <class Items, class Weight>
size_t pick(Rng& rng, const Items& items, Weight weight) {
  double x = uniform(rng), sum = 0;
  size_t i = 0;
  for (const auto& item : items) {
    sum += weight(item);
    if (x < sum) return i;
    ++i;
  }
  return items.size() - 1;
}

}  // namespace

FittedWorkload fit_workload(const std::vector<sim::TraceRecord>& records,
                            const std::string& source) {
  std::vector<const sim::TraceRecord*> jobs;
  for (const sim::TraceRecord& r : records)
    if (is_known_trace_model(r.model) && r.batch > 0 && r.iterations > 0) jobs.push_back(&r);
  if (jobs.empty())
    throw InputError(source, "no job with a known model, a batch and iterations to fit");
  FittedWorkload w;
  w.source = source;
  w.jobs_fitted = static_cast<long>(jobs.size());
  fit_arrivals(jobs, w);
  fit_shares(jobs, w);
  fit_iterations(jobs, w);
  fit_slack(jobs, w);
  return w;
}

void write_workload(std::ostream& out, const FittedWorkload& w) {
  out.precision(6);
  out << "# A workload fitted by `pacml workload fit` (format: sim/gpu/fitted_workload.h).\n"
      << "pacml_workload: 1\nsource: \"" << w.source << "\"\njobs_fitted: " << w.jobs_fitted
      << "\n# jobs per hour, by hour of day (0-23)\narrivals_per_hour: [";
  for (size_t h = 0; h < w.arrivals_per_hour.size(); ++h)
    out << (h ? ", " : "") << w.arrivals_per_hour[h];
  out << "]\n# (model, global batch) mix\nmodels:\n";
  for (const ModelShare& m : w.models) {
    out << "  - {model: " << m.model;
    if (!m.graph.empty()) out << ", graph: " << m.graph << ", profiled_batch: " << m.profiled_batch;
    out << ", batch: " << m.batch << ", share: " << m.share;
    if (m.shape.layers) out << ", layers: " << m.shape.layers;
    if (m.shape.hidden) out << ", hidden: " << m.shape.hidden;
    if (m.shape.heads) out << ", heads: " << m.shape.heads;
    out << "}\n";
  }
  out << "# iterations ~ log-normal, clipped to [min, max]\niterations: {log_mean: "
      << w.log_iterations_mean << ", log_sd: " << w.log_iterations_sd
      << ", min: " << w.min_iterations << ", max: " << w.max_iterations
      << "}\n# requested GPUs: share of jobs\ngpus: {";
  bool first = true;
  for (const auto& [g, share] : w.gpus)
    out << (first ? "" : ", ") << g << ": " << share, first = false;
  out << "}\n# deadline = submit + slack x duration on the requested GPUs, slack ~ uniform\n"
      << "slack: {min: " << w.slack_min << ", max: " << w.slack_max << "}\n";
}

FittedWorkload load_workload(std::istream& in, const std::string& source) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source); });
}

FittedWorkload load_workload_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return load_workload(in, path);
}

FittedWorkload load_workload_named(const std::string& name_or_path) {
  if (const char* text = builtin_workload_text(name_or_path)) {
    std::istringstream in(text);
    return load_workload(in, "built-in workload '" + name_or_path + "'");
  }
  return load_workload_file(name_or_path);
}

FittedJobGenerator::FittedJobGenerator(const FittedWorkload& workload, double load,
                                       std::uint64_t seed, DurationModel& durations,
                                       const std::optional<sim::BetaSpec>& beta)
    : workload_(workload), load_(load), rng_(seed), durations_(durations) {
  if (!(load > 0)) throw InputError("--load", "load must be positive");
  peak_ = *std::max_element(workload.arrivals_per_hour.begin(), workload.arrivals_per_hour.end()) *
          load / kHour;
  if (beta) beta_.emplace(*beta, rng_);
}

// Seconds from submission to the deadline: slack × the run time on the
// requested GPUs (ElasticFlow), or β × the sequential run time (the paper).
double FittedJobGenerator::deadline_allowance(const Job& job) {
  const FittedWorkload& w = workload_;
  if (beta_) {
    const double beta = beta_->sample(rng_);
    for (int k = 1; k <= durations_.cluster_gpus(); ++k) {
      const double sequential = run_seconds(durations_, job, k);
      if (std::isfinite(sequential)) return beta * sequential;
    }
    return beta * fastest_seconds(durations_, job);
  }
  const double slack = w.slack_min + (w.slack_max - w.slack_min) * uniform(rng_);
  double duration = run_seconds(durations_, job, job.requested);
  if (!std::isfinite(duration)) duration = fastest_seconds(durations_, job);
  return slack * duration;
}

Job FittedJobGenerator::next() {
  const FittedWorkload& w = workload_;
  for (;;) {
    // Thinning: candidates at the peak rate, kept in proportion to the hour's.
    time_ += -std::log(std::max(uniform(rng_), 1e-300)) / peak_;
    const int hour = static_cast<int>(std::fmod(time_ / kHour, 24.0));
    if (uniform(rng_) * peak_ <= w.arrivals_per_hour[hour] * load_ / kHour) break;
  }
  const ModelShare& m = w.models[pick(rng_, w.models, [](const ModelShare& s) { return s.share; })];
  Job job;
  job.id = std::to_string(drawn_++);
  job.source = "generated job " + job.id;
  job.submit = time_;
  job.work = m.graph.empty() ? kinds_.get(m.model, m.batch, m.shape)
                             : kinds_.get_graph(m.graph, m.profiled_batch, m.batch);
  const double iterations = std::exp(w.log_iterations_mean + w.log_iterations_sd * normal(rng_));
  // Clamped as a double first: a wide log-normal can overflow a long.
  job.iterations = std::llround(std::clamp(iterations, static_cast<double>(w.min_iterations),
                                           static_cast<double>(w.max_iterations)));
  auto g = w.gpus.begin();
  std::advance(g, pick(rng_, w.gpus, [](const auto& kv) { return kv.second; }));
  job.requested = std::min(g->first, durations_.cluster_gpus());
  job.deadline = time_ + deadline_allowance(job);
  return job;
}

std::vector<Job> generate_jobs(const FittedWorkload& w, double load, long count, std::uint64_t seed,
                               DurationModel& durations, const std::optional<sim::BetaSpec>& beta) {
  FittedJobGenerator generator(w, load, seed, durations, beta);
  std::vector<Job> jobs;
  while (static_cast<long>(jobs.size()) < count) jobs.push_back(generator.next());
  return jobs;
}

}  // namespace pacml::gpu
