#include "sim/experiment/experiment_keys.h"

#include <cmath>
#include <utility>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/ramp_topology.h"
#include "core/cluster/topology_yaml.h"
#include "core/correction/correction_file.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/workload/paths.h"

namespace pacml::sim {

const char* const kPaperStyleExperiment = "a paper-style workload (type: synthetic or trace)";
const char* const kFittedExperiment = "workload: {kind: fitted}";
const char* const kDefaultBeta = "A";

namespace {

using T = SettingType;
using Spec = ExperimentSpec;
using Binding = BoundSettings<Spec>::Binding;

SettingKey paper(SettingKey key) {
  return key.only_with(kPaperStyleExperiment);
}

SettingKey fitted(SettingKey key) {
  return key.only_with(kFittedExperiment);
}

// Value readers that keep the messages experiment files have always had
// ("workload.interarrival must be positive", ...).
auto text_named(std::string what) {
  return [what](const YAML::Node& n, const std::string& source) {
    return yaml_scalar(n, source, what);
  };
}
auto positive_named(std::string what) {
  return [what](const YAML::Node& n, const std::string& source) {
    return yaml_positive(n, source, what);
  };
}
auto integer_named(std::string what, long lo, long hi) {
  return [what, lo, hi](const YAML::Node& n, const std::string& source) {
    return yaml_integer(n, source, what, lo, hi);
  };
}

// A preset name stays as it is; anything else is a path from the experiment's directory.
std::string preset_or_path(const YAML::Node& node, const std::string& source,
                           const std::string& what, const std::string& base_dir,
                           bool (*is_preset)(const std::string&)) {
  const std::string value = yaml_scalar(node, source, what);
  if (is_preset(value)) return value;
  return resolve_path(value, base_dir, yaml_where(source, node));
}

// The workload, by the table of its kind (fitted) or type (synthetic, trace).
void read_workload(const SettingsTable&, const YAML::Node& root, const std::string& source,
                   Spec& spec) {
  const YAML::Node w = root["workload"];
  if (!w.IsMap()) throw InputError(yaml_where(source, w), "workload must be a mapping");
  if (spec.world == World::kGpu) {
    fitted_workload_keys().table().check_known(w, source);
    fitted_workload_keys().read(w, source, spec);
    if (!w["params"])
      throw InputError(yaml_where(source, w),
                       "a fitted workload needs 'params' (a file of `pacml workload fit`)");
    return;
  }
  spec.workload_type = w["type"] ? yaml_scalar(w["type"], source, "workload.type") : "synthetic";
  if (spec.workload_type == "synthetic") {
    synthetic_workload_keys().table().check_known(w, source);
    if (!w["graphs"])
      throw InputError(yaml_where(source, w), "a synthetic workload needs 'graphs'");
    synthetic_workload_keys().read(w, source, spec);
    return;
  }
  if (spec.workload_type != "trace")
    throw InputError(yaml_where(source, w["type"]),
                     "workload.type must be synthetic or trace, got '" + spec.workload_type + "'");
  trace_workload_keys().table().check_known(w, source);
  if (!w["path"] || !w["format"])
    throw InputError(yaml_where(source, w), "a trace workload needs 'path' and 'format'");
  spec.mapping.base_dir = spec.base_dir;
  trace_workload_keys().read(w, source, spec);
  spec.mapping.validate(yaml_where(source, w));
}

// seeds: N (0..N-1), "3,5,8", "10..19", a list, or {first, count}.
void read_seeds(const SettingsTable&, const YAML::Node& root, const std::string& source,
                Spec& spec) {
  const YAML::Node s = root["seeds"];
  spec.seeds.clear();
  if (s.IsScalar()) {
    spec.seeds = parse_seed_list(s.Scalar(), yaml_where(source, s));
  } else if (s.IsSequence()) {
    for (const auto& item : s)
      spec.seeds.push_back(
          static_cast<std::uint64_t>(yaml_integer(item, source, "seed", 0, 1L << 62)));
  } else {
    SeedRange range;
    seed_range_keys().table().check_known(s, source);
    seed_range_keys().read(s, source, range);
    for (long i = 0; i < range.count; ++i)
      spec.seeds.push_back(static_cast<std::uint64_t>(range.first + i));
  }
  if (spec.seeds.empty()) throw InputError(yaml_where(source, s), "seeds is empty");
}

// The keys of both kinds of experiment.
std::vector<Binding> common_keys(const Spec& d) {
  return {
      bind_with<Spec>(
          SettingKey("pacml_experiment", T::kInteger, "format version: 1 (required)")
              .range(1, 1000),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source, Spec&) {
            if (keys.integer(r, source, "pacml_experiment") != 1)
              throw InputError(yaml_where(source, r["pacml_experiment"]),
                               "unsupported experiment format version (this pacml reads 1)");
          }),
      bind(SettingKey("name", T::kText, "shown in tables and plots"), &Spec::name, d),
      bind(SettingKey("description", T::kText, "free text"), &Spec::description, d),
      bind_with<Spec>(
          SettingKey("world", T::kChoice,
                     "paper: the paper's RAMP episodes (type: synthetic or trace); gpu: jobs on a "
                     "GPU cluster (kind: fitted). Must agree with the workload")
              .one_of({"paper", "gpu"})
              .defaults_to("the workload's"),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.world = experiment_world(r, source);
          }),
      bind_with<Spec>(SettingKey("workload", T::kMapping,
                                 "the jobs: type: synthetic, type: trace or kind: fitted (tables "
                                 "below; required)"),
                      read_workload),
      bind_with<Spec>(
          SettingKey("policies", T::kList, "the policies compared")
              .defaults_to("para_max; fitted: requested, min_feasible, para_max"),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.policies = yaml_strings(r["policies"], source, "policies");
          }),
      bind_with<Spec>(SettingKey("seeds", T::kText,
                                 "N (seeds 0..N-1), \"3,5,8\", \"10..19\", a list or "
                                 "{first, count} (table `experiment.seeds`)")
                          .defaults_to("one seed, 0"),
                      read_seeds),
  };
}

// The paper's RAMP episodes.
std::vector<Binding> paper_keys(const Spec& d) {
  return {
      bind(
          paper(
              SettingKey("profile", T::kChoice, "the JCT model").one_of({"physical", "reference"})),
          &Spec::profile, d,
          [](const YAML::Node& n, const std::string& source) {
            const std::string profile = yaml_scalar(n, source, "profile");
            Profile::by_name(profile, yaml_where(source, n));  // checks the name
            return profile;
          }),
      bind_with<Spec>(
          paper(SettingKey("topology", T::kText,
                           "the RAMP cluster: CxRxS or a mapping "
                           "(`pacml config keys topology`)")
                    .defaults_to(RampTopology(d.topology).shape())),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.topology = parse_ramp_topology(r["topology"], source);
          }),
      bind(paper(SettingKey("steps", T::kInteger, "training steps per job").range(1, 1e9)),
           &Spec::steps, d),
      bind(paper(SettingKey("horizon", T::kText, "episode length in profile time units, or inf")),
           &Spec::horizon, d,
           [](const YAML::Node& n, const std::string& source) {
             const std::string h = yaml_scalar(n, source, "horizon");
             return h == "inf" || h == "none" ? kInfiniteHorizon
                                              : yaml_positive(n, source, "horizon");
           }),
      bind_with<Spec>(
          paper(SettingKey("beta", T::kList,
                           "deadline distributions: A-D, uniform(lo,hi), "
                           "fixed(v) or a number")
                    .defaults_to(kDefaultBeta)),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.betas.clear();
            for (const std::string& b : yaml_strings(r["beta"], source, "beta"))
              spec.betas.push_back(BetaSpec::parse(b, yaml_where(source, r["beta"])));
            if (spec.betas.empty())
              throw InputError(yaml_where(source, r["beta"]), "beta is empty");
          }),
      bind(
          paper(SettingKey("threads", T::kInteger, "worker threads; 0 = all cores").range(0, 1024)),
          &Spec::threads, d),
  };
}

// A GPU cluster's replay of a fitted workload.
std::vector<Binding> fitted_keys(const Spec& d) {
  return {
      bind_with<Spec>(
          fitted(SettingKey("cluster", T::kText, "a cluster preset or file")
                     .defaults_to(d.fitted.cluster)),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.fitted.cluster = preset_or_path(
                r["cluster"], source, "cluster", spec.base_dir,
                [](const std::string& v) { return cluster_preset_text(v) != nullptr; });
          }),
      bind_with<Spec>(
          fitted(SettingKey("throughput_table", T::kText,
                            "a directory of measured scaling tables (ElasticFlow's MODEL.csv "
                            "format), relative to this file")),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            const YAML::Node n = r["throughput_table"];
            spec.fitted.throughput_table = resolve_path(yaml_scalar(n, source, "throughput_table"),
                                                        spec.base_dir, yaml_where(source, n));
          }),
      bind_with<Spec>(
          fitted(SettingKey("correction", T::kText,
                            "a site correction file (`pacml calibrate --history`), relative to "
                            "this file: the simulated step times and the predictions are "
                            "corrected")),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            const YAML::Node n = r["correction"];
            spec.fitted.correction = read_correction_file(resolve_path(
                yaml_scalar(n, source, "correction"), spec.base_dir, yaml_where(source, n)));
          }),
      bind_with<Spec>(
          fitted(SettingKey("admission", T::kChoice, "place now or block, wait in a queue, or both")
                     .one_of({"immediate", "queue", "both"})
                     .defaults_to("both")),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            const std::string text = yaml_scalar(r["admission"], source, "admission");
            spec.fitted.admissions =
                gpu::parse_admissions(text, yaml_where(source, r["admission"]));
          }),
      bind_with<Spec>(
          fitted(SettingKey("order", T::kChoice, "the order waiting jobs are tried in")
                     .one_of({"edf", "deadline", "fifo", "submission"})
                     .defaults_to("edf")),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source, Spec& spec) {
            spec.fitted.order = gpu::parse_queue_order(yaml_scalar(r["order"], source, "order"),
                                                       yaml_where(source, r["order"]));
          }),
  };
}

std::vector<Binding> concatenated(std::vector<std::vector<Binding>> parts) {
  std::vector<Binding> all;
  for (std::vector<Binding>& part : parts)
    for (Binding& b : part) all.push_back(std::move(b));
  return all;
}

// Reads the graphs of `type: synthetic`.
void read_graphs(const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
  spec.graphs = yaml_strings(w["graphs"], source, "workload.graphs");
  if (spec.graphs.empty())
    throw InputError(yaml_where(source, w["graphs"]), "workload.graphs is empty");
}

const char* distribution_name(bool exponential) {
  return exponential ? "exponential" : "fixed";
}

std::vector<Binding> synthetic_workload_bindings(const Spec& d) {
  return {
      bind(SettingKey("type", T::kChoice, "the paper's generator").one_of({"synthetic"}),
           &Spec::workload_type, d, text_named("workload.type")),
      bind_with<Spec>(
          SettingKey("graphs", T::kList, "graph files or zoo names, drawn uniformly (required)"),
          read_graphs),
      bind(SettingKey("interarrival", T::kNumber, "mean time between arrivals, profile units")
               .range(1e-300, INFINITY),
           &Spec::interarrival, d, positive_named("workload.interarrival")),
      bind_with<Spec>(
          SettingKey("interarrival_distribution", T::kChoice, "constant or Poisson arrivals")
              .one_of({distribution_name(false), distribution_name(true)})
              .defaults_to(distribution_name(d.exponential)),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            const YAML::Node n = w["interarrival_distribution"];
            const std::string text = yaml_scalar(n, source, "workload.interarrival_distribution");
            if (text != distribution_name(false) && text != distribution_name(true))
              throw InputError(yaml_where(source, n),
                               "must be fixed or exponential, got '" + text + "'");
            spec.exponential = text == distribution_name(true);
          }),
      bind(SettingKey("first_arrival", T::kNumber, "time of the first arrival").range(0, INFINITY),
           &Spec::first_arrival, d,
           [](const YAML::Node& n, const std::string& source) {
             const double first = yaml_number(n, source, "workload.first_arrival");
             if (first < 0) throw InputError(yaml_where(source, n), "first_arrival is negative");
             return first;
           }),
      bind(SettingKey("max_jobs", T::kInteger, "jobs per episode; -1 = until the horizon")
               .range(-1, 1099511627776.0),
           &Spec::max_jobs, d, integer_named("workload.max_jobs", -1, 1L << 40)),
  };
}

std::vector<Binding> trace_workload_bindings(const Spec& d) {
  const auto mapping = [](auto member) { return nested(&Spec::mapping, member); };
  return {
      bind_with<Spec>(
          SettingKey("type", T::kChoice, "replay a job trace").one_of({"trace"}),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            spec.workload_type = text_named("workload.type")(w["type"], source);
          }),
      bind_with<Spec>(
          SettingKey("format", T::kChoice, "the trace's format (required)")
              .one_of({"elasticflow", "swf", "sacct", "squeue-json", "pacml-log"}),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            spec.trace_format =
                parse_trace_format(yaml_scalar(w["format"], source, "workload.format"),
                                   yaml_where(source, w["format"]));
          }),
      bind_with<Spec>(
          SettingKey("path", T::kText, "the trace file (required)"),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            spec.trace_path = resolve_path(yaml_scalar(w["path"], source, "workload.path"),
                                           spec.base_dir, yaml_where(source, w["path"]));
          }),
      bind_with<Spec>(
          SettingKey("model_map", T::kMapping, "trace model name: zoo name or graph file"),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            const YAML::Node m = w["model_map"];
            if (!m.IsMap()) throw InputError(yaml_where(source, m), "model_map must be a mapping");
            for (const auto& kv : m)
              spec.mapping.model_map[kv.first.as<std::string>()] =
                  yaml_scalar(kv.second, source, "model_map entry");
          }),
      bind(SettingKey("unknown_model", T::kText, "reject, skip, or a graph for unmapped models"),
           mapping(&TraceMapping::unknown_model), d, text_named("workload.unknown_model")),
      bind_with<Spec>(
          SettingKey("models", T::kList, "graphs for traces that name no model"),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            spec.mapping.models = yaml_strings(w["models"], source, "workload.models");
          }),
      bind(SettingKey("time_scale", T::kNumber, "trace seconds to profile units")
               .range(1e-300, INFINITY),
           mapping(&TraceMapping::time_scale), d, positive_named("workload.time_scale")),
      bind(SettingKey("gpu_scale", T::kNumber, "trace GPUs per pacml worker")
               .range(1e-300, INFINITY),
           mapping(&TraceMapping::gpu_scale), d, positive_named("workload.gpu_scale")),
      bind(SettingKey("beta_rule", T::kChoice, "where a job's beta comes from")
               .one_of({"work", "slack", "distribution"}),
           mapping(&TraceMapping::beta_rule), d, text_named("workload.beta_rule")),
      bind(SettingKey("steps_rule", T::kChoice, "where a job's steps come from")
               .one_of({"auto", "iterations", "work", "fixed"}),
           mapping(&TraceMapping::steps_rule), d, text_named("workload.steps_rule")),
      bind(SettingKey("iteration_scale", T::kNumber, "trace iterations per pacml step")
               .range(1e-300, INFINITY),
           mapping(&TraceMapping::iteration_scale), d, positive_named("workload.iteration_scale")),
      bind(SettingKey("max_jobs", T::kInteger, "the first N jobs; -1 = all")
               .range(-1, 1099511627776.0),
           mapping(&TraceMapping::max_jobs), d, integer_named("workload.max_jobs", -1, 1L << 40)),
      bind(SettingKey("skip_bad_lines", T::kBoolean, "skip and count bad lines instead of failing"),
           &Spec::skip_bad, d,
           [](const YAML::Node& n, const std::string& source) {
             return yaml_bool(n, source, "workload.skip_bad_lines");
           }),
  };
}

std::vector<Binding> fitted_workload_bindings(const Spec& d) {
  const auto fitted_member = [](auto member) { return nested(&Spec::fitted, member); };
  return {
      bind_with<Spec>(
          SettingKey("kind", T::kChoice, "jobs drawn from a fitted workload (required)")
              .one_of({"fitted"}),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            const std::string kind = yaml_scalar(w["kind"], source, "workload.kind");
            if (kind != "fitted")
              throw InputError(yaml_where(source, w["kind"]),
                               "workload.kind must be fitted, got '" + kind +
                                   "' (the paper's workloads are 'type: synthetic' or 'type: "
                                   "trace')");
            spec.workload_type = "fitted";
          }),
      bind_with<Spec>(
          SettingKey("params", T::kText,
                     "a `pacml workload fit` file or a built-in name (required)"),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            spec.fitted.params =
                preset_or_path(w["params"], source, "workload.params", spec.base_dir,
                               [](const std::string& v) { return gpu::is_builtin_workload(v); });
          }),
      bind(SettingKey("load", T::kNumber, "x the fitted arrival rate").range(1e-6, 1e6),
           fitted_member(&FittedExperimentSpec::load), d,
           [](const YAML::Node& n, const std::string& source) {
             return yaml_number(n, source, "workload.load", 1e-6, 1e6);
           }),
      bind(SettingKey("jobs", T::kInteger, "jobs per seed").range(1, 1e8),
           fitted_member(&FittedExperimentSpec::jobs), d,
           integer_named("workload.jobs", 1, 100'000'000)),
      // ElasticFlow's slack rule (the fit's) unless beta_deadline is set.
      bind_with<Spec>(
          SettingKey("deadline", T::kChoice, "ElasticFlow's slack rule or the paper's beta rule")
              .one_of({"slack", "beta"})
              .defaults_to("slack"),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            const std::string rule = yaml_scalar(w["deadline"], source, "workload.deadline");
            if (rule != "slack" && rule != "beta")
              throw InputError(yaml_where(source, w["deadline"]),
                               "workload.deadline must be slack or beta, got '" + rule + "'");
            if (rule == "beta") spec.fitted.beta_deadline = BetaSpec::parse(kDefaultBeta);
          }),
      // Read after `deadline`, which it needs.
      bind_with<Spec>(
          SettingKey("beta", T::kText, "with deadline: beta, the beta distribution")
              .defaults_to(kDefaultBeta),
          [](const SettingsTable&, const YAML::Node& w, const std::string& source, Spec& spec) {
            if (!spec.fitted.beta_deadline)
              throw InputError(yaml_where(source, w["beta"]),
                               "workload.beta needs 'deadline: beta'");
            spec.fitted.beta_deadline = BetaSpec::parse(
                yaml_scalar(w["beta"], source, "workload.beta"), yaml_where(source, w["beta"]));
          }),
  };
}

}  // namespace

const BoundSettings<ExperimentSpec>& experiment_keys() {
  static const Spec d;
  static const BoundSettings<Spec> keys(
      "experiment key", concatenated({common_keys(d), paper_keys(d), fitted_keys(d)}));
  return keys;
}

const BoundSettings<ExperimentSpec>& synthetic_workload_keys() {
  static const Spec d;
  static const BoundSettings<Spec> keys("synthetic workload key", synthetic_workload_bindings(d));
  return keys;
}

const BoundSettings<ExperimentSpec>& trace_workload_keys() {
  static const Spec d;
  static const BoundSettings<Spec> keys("trace workload key", trace_workload_bindings(d));
  return keys;
}

const BoundSettings<ExperimentSpec>& fitted_workload_keys() {
  static const Spec d;
  static const BoundSettings<Spec> keys("fitted workload key", fitted_workload_bindings(d));
  return keys;
}

const BoundSettings<SeedRange>& seed_range_keys() {
  static const SeedRange d;
  static const BoundSettings<SeedRange> keys(
      "seeds key",
      {bind(SettingKey("first", T::kInteger, "the first seed").range(0, 1L << 62),
            &SeedRange::first, d),
       bind(SettingKey("count", T::kInteger, "how many consecutive seeds").range(1, 1000000),
            &SeedRange::count, d)});
  return keys;
}

const SettingsTable& experiment_settings() {
  return experiment_keys().table();
}
const SettingsTable& synthetic_workload_settings() {
  return synthetic_workload_keys().table();
}
const SettingsTable& trace_workload_settings() {
  return trace_workload_keys().table();
}
const SettingsTable& fitted_workload_settings() {
  return fitted_workload_keys().table();
}
const SettingsTable& seed_range_settings() {
  return seed_range_keys().table();
}

World experiment_world(const YAML::Node& root, const std::string& source) {
  const YAML::Node w = root["workload"];
  const World by_workload = w && w.IsMap() && w["kind"] ? World::kGpu : World::kPaper;
  if (!root["world"]) return by_workload;
  const World world =
      parse_world(yaml_scalar(root["world"], source, "world"), yaml_where(source, root["world"]));
  if (world == World::kGpu && by_workload == World::kPaper)
    throw InputError(yaml_where(source, root["world"]),
                     "world: gpu replays jobs on a GPU cluster and needs 'workload: {kind: "
                     "fitted, ...}'; the paper's workloads (type: synthetic or trace) are "
                     "world: paper");
  if (world == World::kPaper && by_workload == World::kGpu)
    throw InputError(yaml_where(source, root["world"]),
                     "world: paper runs the paper's RAMP episodes; a 'kind: fitted' workload is "
                     "world: gpu");
  return world;
}

}  // namespace pacml::sim
