#include "sim/experiment/experiment.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/correction/correction_file.h"
#include "core/gpu/policy.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/experiment_keys.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/workload/paths.h"
#include "sim/workload/synthetic.h"

namespace pacml::sim {
namespace {

void parse_workload(const YAML::Node& w, const std::string& source, ExperimentSpec& spec) {
  if (!w.IsMap()) throw InputError(yaml_where(source, w), "workload must be a mapping");
  spec.workload_type = w["type"] ? yaml_scalar(w["type"], source, "workload.type") : "synthetic";
  if (spec.workload_type == "synthetic") {
    synthetic_workload_settings().check_known(w, source);
    if (!w["graphs"])
      throw InputError(yaml_where(source, w), "a synthetic workload needs 'graphs'");
    spec.graphs = yaml_strings(w["graphs"], source, "workload.graphs");
    if (spec.graphs.empty())
      throw InputError(yaml_where(source, w["graphs"]), "workload.graphs is empty");
    if (w["interarrival"])
      spec.interarrival = yaml_positive(w["interarrival"], source, "workload.interarrival");
    if (w["interarrival_distribution"]) {
      const std::string d =
          yaml_scalar(w["interarrival_distribution"], source, "workload.interarrival_distribution");
      if (d != "fixed" && d != "exponential")
        throw InputError(yaml_where(source, w["interarrival_distribution"]),
                         "must be fixed or exponential, got '" + d + "'");
      spec.exponential = d == "exponential";
    }
    if (w["first_arrival"]) {
      spec.first_arrival = yaml_number(w["first_arrival"], source, "workload.first_arrival");
      if (spec.first_arrival < 0)
        throw InputError(yaml_where(source, w["first_arrival"]), "first_arrival is negative");
    }
    if (w["max_jobs"])
      spec.max_jobs = yaml_integer(w["max_jobs"], source, "workload.max_jobs", -1, 1L << 40);
    return;
  }
  if (spec.workload_type != "trace")
    throw InputError(yaml_where(source, w["type"]),
                     "workload.type must be synthetic or trace, got '" + spec.workload_type + "'");
  trace_workload_settings().check_known(w, source);
  if (!w["path"] || !w["format"])
    throw InputError(yaml_where(source, w), "a trace workload needs 'path' and 'format'");
  spec.trace_path = resolve_path(yaml_scalar(w["path"], source, "workload.path"), spec.base_dir,
                                 yaml_where(source, w["path"]));
  spec.trace_format = parse_trace_format(yaml_scalar(w["format"], source, "workload.format"),
                                         yaml_where(source, w["format"]));
  TraceMapping& m = spec.mapping;
  m.base_dir = spec.base_dir;
  if (w["model_map"]) {
    if (!w["model_map"].IsMap())
      throw InputError(yaml_where(source, w["model_map"]), "model_map must be a mapping");
    for (const auto& kv : w["model_map"])
      m.model_map[kv.first.as<std::string>()] = yaml_scalar(kv.second, source, "model_map entry");
  }
  if (w["unknown_model"])
    m.unknown_model = yaml_scalar(w["unknown_model"], source, "workload.unknown_model");
  if (w["models"]) m.models = yaml_strings(w["models"], source, "workload.models");
  if (w["time_scale"]) m.time_scale = yaml_positive(w["time_scale"], source, "workload.time_scale");
  if (w["gpu_scale"]) m.gpu_scale = yaml_positive(w["gpu_scale"], source, "workload.gpu_scale");
  if (w["beta_rule"]) m.beta_rule = yaml_scalar(w["beta_rule"], source, "workload.beta_rule");
  if (w["steps_rule"]) m.steps_rule = yaml_scalar(w["steps_rule"], source, "workload.steps_rule");
  if (w["iteration_scale"])
    m.iteration_scale = yaml_positive(w["iteration_scale"], source, "workload.iteration_scale");
  if (w["max_jobs"])
    m.max_jobs = yaml_integer(w["max_jobs"], source, "workload.max_jobs", -1, 1L << 40);
  if (w["skip_bad_lines"])
    spec.skip_bad = yaml_bool(w["skip_bad_lines"], source, "workload.skip_bad_lines");
  m.validate(yaml_where(source, w));
}

// seeds: N (0..N-1), "3,5,8", "10..19", a list, or {first, count}; default 0.
void parse_seeds(const YAML::Node& root, const std::string& source, ExperimentSpec& spec) {
  if (root["seeds"]) {
    const YAML::Node s = root["seeds"];
    if (s.IsScalar()) {
      spec.seeds = parse_seed_list(s.Scalar(), yaml_where(source, s));
    } else if (s.IsSequence()) {
      for (const auto& item : s)
        spec.seeds.push_back(
            static_cast<std::uint64_t>(yaml_integer(item, source, "seed", 0, 1L << 62)));
    } else {
      const SettingsTable& keys = seed_range_settings();
      keys.check_known(s, source);
      const long first = s["first"] ? keys.integer(s, source, "first") : 0;
      const long count = s["count"] ? keys.integer(s, source, "count") : 1;
      for (long i = 0; i < count; ++i) spec.seeds.push_back(static_cast<std::uint64_t>(first + i));
    }
  } else {
    spec.seeds = {0};
  }
  if (spec.seeds.empty()) throw InputError(yaml_where(source, root["seeds"]), "seeds is empty");
}

void parse_threads(const YAML::Node& root, const std::string& source, ExperimentSpec& spec) {
  if (root["threads"])
    spec.threads = static_cast<int>(yaml_integer(root["threads"], source, "threads", 0, 1024));
}

bool has_fitted_workload(const YAML::Node& root) {
  const YAML::Node w = root["workload"];
  return w && w.IsMap() && w["kind"];
}

// The experiment's world: `world:` when given, else the workload's (`kind:
// fitted` runs on a GPU cluster; `type: synthetic|trace` is the paper's).
// The two must agree, so a file says one thing.
World experiment_world(const YAML::Node& root, const std::string& source) {
  const World by_workload = has_fitted_workload(root) ? World::kGpu : World::kPaper;
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

// A preset name stays as it is; anything else is a path from the experiment's directory.
std::string preset_or_path(const YAML::Node& node, const std::string& source,
                           const std::string& what, const std::string& base_dir,
                           bool (*is_preset)(const std::string&)) {
  const std::string value = yaml_scalar(node, source, what);
  if (is_preset(value)) return value;
  return resolve_path(value, base_dir, yaml_where(source, node));
}

// deadline: slack (ElasticFlow's, from the fit) or beta (the paper's), with
// beta: a β distribution (A when absent).
void parse_deadline_rule(const YAML::Node& w, const std::string& source,
                         FittedExperimentSpec& fitted) {
  const std::string rule =
      w["deadline"] ? yaml_scalar(w["deadline"], source, "workload.deadline") : "slack";
  if (rule != "slack" && rule != "beta")
    throw InputError(yaml_where(source, w["deadline"]),
                     "workload.deadline must be slack or beta, got '" + rule + "'");
  if (rule == "slack" && w["beta"])
    throw InputError(yaml_where(source, w["beta"]), "workload.beta needs 'deadline: beta'");
  if (rule == "beta")
    fitted.beta_deadline = w["beta"]
                               ? BetaSpec::parse(yaml_scalar(w["beta"], source, "workload.beta"),
                                                 yaml_where(source, w["beta"]))
                               : BetaSpec::parse("A");
}

void parse_fitted_workload(const YAML::Node& w, const std::string& source,
                           const std::string& base_dir, FittedExperimentSpec& fitted) {
  fitted_workload_settings().check_known(w, source);
  const std::string kind = yaml_scalar(w["kind"], source, "workload.kind");
  if (kind != "fitted")
    throw InputError(yaml_where(source, w["kind"]),
                     "workload.kind must be fitted, got '" + kind +
                         "' (the paper's workloads are 'type: synthetic' or 'type: trace')");
  if (!w["params"])
    throw InputError(yaml_where(source, w),
                     "a fitted workload needs 'params' (a file of `pacml workload fit`)");
  fitted.params = preset_or_path(w["params"], source, "workload.params", base_dir,
                                 [](const std::string& v) { return gpu::is_builtin_workload(v); });
  if (w["load"]) fitted.load = yaml_number(w["load"], source, "workload.load", 1e-6, 1e6);
  if (w["jobs"]) fitted.jobs = yaml_integer(w["jobs"], source, "workload.jobs", 1, 100'000'000);
  parse_deadline_rule(w, source, fitted);
}

std::vector<gpu::Admission> parse_admissions(const YAML::Node& node, const std::string& source) {
  const std::string text = yaml_scalar(node, source, "admission");
  if (text == "both") return {gpu::Admission::kImmediate, gpu::Admission::kQueue};
  return {gpu::parse_admission(text, yaml_where(source, node))};
}

// workload: {kind: fitted, ...}: the GPU-cluster keys; the paper's
// (profile, topology, steps, horizon, beta) are unknown keys here.
void parse_fitted_experiment(const YAML::Node& root, const std::string& source,
                             ExperimentSpec& spec) {
  experiment_settings().check_known(root, source, kFittedExperiment);
  spec.workload_type = "fitted";
  FittedExperimentSpec& fitted = spec.fitted;
  parse_fitted_workload(root["workload"], source, spec.base_dir, fitted);
  if (root["cluster"])
    fitted.cluster =
        preset_or_path(root["cluster"], source, "cluster", spec.base_dir,
                       [](const std::string& v) { return cluster_preset_text(v) != nullptr; });
  if (root["throughput_table"])
    fitted.throughput_table =
        resolve_path(yaml_scalar(root["throughput_table"], source, "throughput_table"),
                     spec.base_dir, yaml_where(source, root["throughput_table"]));
  if (root["correction"])
    fitted.correction =
        read_correction_file(resolve_path(yaml_scalar(root["correction"], source, "correction"),
                                          spec.base_dir, yaml_where(source, root["correction"])));
  if (root["admission"]) fitted.admissions = parse_admissions(root["admission"], source);
  if (root["order"])
    fitted.order = gpu::parse_queue_order(yaml_scalar(root["order"], source, "order"),
                                          yaml_where(source, root["order"]));
  spec.policies = {"requested", "min_feasible", "para_max"};
  if (root["policies"]) {
    spec.policies = yaml_strings(root["policies"], source, "policies");
    for (const std::string& p : spec.policies)
      gpu::Policy::parse(p, yaml_where(source, root["policies"]), model_search_dirs());
  }
  if (spec.policies.empty())
    throw InputError(yaml_where(source, root["policies"]), "policies is empty");
}

}  // namespace

std::vector<std::uint64_t> parse_seed_list(const std::string& raw, const std::string& where) {
  const std::string text(trim(raw));
  std::vector<std::uint64_t> out;
  if (text.find(',') != std::string::npos) {
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
      out.push_back(
          static_cast<std::uint64_t>(parse_integer(trim(item), 0, 1L << 62, where, "seed")));
    return out;
  }
  const size_t dots = text.find("..");
  if (dots != std::string::npos) {
    const long a = parse_integer(text.substr(0, dots), 0, 1L << 62, where, "first seed");
    const long b = parse_integer(text.substr(dots + 2), a, a + 1000000, where, "last seed");
    for (long s = a; s <= b; ++s) out.push_back(static_cast<std::uint64_t>(s));
    return out;
  }
  const long n = parse_integer(text, 1, 1000000, where, "number of seeds");
  for (long s = 0; s < n; ++s) out.push_back(static_cast<std::uint64_t>(s));
  return out;
}

void check_episodes_end(const ExperimentSpec& spec, const std::string& where) {
  // A synthetic stream never runs dry.
  if (!std::isfinite(spec.horizon) && spec.workload_type == "synthetic" && spec.max_jobs < 0)
    throw InputError(where,
                     "horizon: inf with a synthetic workload never ends; set a finite horizon "
                     "or workload.max_jobs");
}

ExperimentSpec parse_experiment(const std::string& yaml_text, const std::string& source,
                                const std::string& base_dir, bool check_policies) {
  std::istringstream in(yaml_text);
  // Not const: a missing key of a const node is invalid, and has no Mark()
  // for yaml_where (check_episodes_end names root["horizon"] even when absent).
  YAML::Node root = parse_yaml(in, source);
  ExperimentSpec spec;
  spec.source = source;
  spec.base_dir = base_dir;
  try {
    spec.world = experiment_world(root, source);
    if (spec.world == World::kPaper)
      experiment_settings().check_known(root, source, kPaperStyleExperiment);
    if (!root["pacml_experiment"])
      throw InputError(source, "not a pacml experiment (missing 'pacml_experiment: 1')");
    if (yaml_integer(root["pacml_experiment"], source, "pacml_experiment", 1, 1000) != 1)
      throw InputError(yaml_where(source, root["pacml_experiment"]),
                       "unsupported experiment format version (this pacml reads 1)");
    if (root["name"]) spec.name = yaml_scalar(root["name"], source, "name");
    if (root["description"])
      spec.description = yaml_scalar(root["description"], source, "description");
    if (spec.world == World::kGpu) {
      parse_fitted_experiment(root, source, spec);
      parse_seeds(root, source, spec);
      return spec;
    }
    if (root["profile"]) {
      spec.profile = yaml_scalar(root["profile"], source, "profile");
      Profile::by_name(spec.profile, yaml_where(source, root["profile"]));
    }
    if (root["topology"]) spec.topology = parse_ramp_topology(root["topology"], source);
    if (root["steps"])
      spec.steps = static_cast<int>(yaml_integer(root["steps"], source, "steps", 1, 1000000000));
    if (root["horizon"]) {
      const std::string h = yaml_scalar(root["horizon"], source, "horizon");
      spec.horizon = (h == "inf" || h == "none")
                         ? kInfiniteHorizon
                         : yaml_positive(root["horizon"], source, "horizon");
    }
    if (!root["workload"]) throw InputError(source, "missing 'workload'");
    parse_workload(root["workload"], source, spec);
    check_episodes_end(spec, yaml_where(source, root["horizon"]));
    if (root["beta"]) {
      for (const std::string& b : yaml_strings(root["beta"], source, "beta"))
        spec.betas.push_back(BetaSpec::parse(b, yaml_where(source, root["beta"])));
    } else {
      spec.betas.push_back(BetaSpec::parse("A"));
    }
    if (spec.betas.empty()) throw InputError(yaml_where(source, root["beta"]), "beta is empty");
    if (root["policies"]) {
      spec.policies = yaml_strings(root["policies"], source, "policies");
      if (check_policies)
        for (const std::string& p : spec.policies)
          check_policy_name(p, yaml_where(source, root["policies"]));
    } else {
      spec.policies = {"para_max"};
    }
    if (spec.policies.empty())
      throw InputError(yaml_where(source, root["policies"]), "policies is empty");
    parse_seeds(root, source, spec);
    parse_threads(root, source, spec);
  } catch (const YAML::Exception& e) {
    throw yaml_error(e, source);
  }
  return spec;
}

void require_paper_style(const ExperimentSpec& spec) {
  if (spec.world == World::kGpu)
    throw InputError(spec.source,
                     "a fitted-workload experiment replays jobs on a GPU cluster: run it with "
                     "`pacml evaluate` (it has no paper-style episodes to simulate or train on)");
}

ExperimentSpec load_experiment_file(const std::string& path, bool check_policies) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot read the experiment file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_experiment(text.str(), path, directory_of(path), check_policies);
}

Experiment::Experiment(ExperimentSpec spec)
    : spec_(std::move(spec)), catalog_(std::make_shared<GraphCatalog>()) {
  require_paper_style(spec_);
  const Profile profile = Profile::by_name(spec_.profile, spec_.source + ": profile");
  estimator_ = std::make_shared<JctEstimator>(
      RampTopology(spec_.topology, spec_.source + ": topology"), profile, spec_.steps);
  if (profile.cache_scope == JctCacheScope::kShared)
    shared_cache_ = std::make_shared<LookaheadCache>();
  if (spec_.workload_type == "synthetic") {
    SyntheticOptions options;
    for (const std::string& g : spec_.graphs) {
      const std::string where = spec_.source + ": workload.graphs";
      if (looks_like_path(g)) {
        const std::string path = resolve_path(g, spec_.base_dir, where);
        if (!file_exists(path))
          throw InputError(where, "graph file '" + g + "' not found (looked for " + path +
                                      " and in the parent directories of " + spec_.base_dir +
                                      "; set PACML_SHARED_DATA if the data lives elsewhere)");
        options.graphs.push_back(catalog_->load_file(path));
      } else {
        options.graphs.push_back(catalog_->by_name(g, where));
      }
    }
    options.exponential = spec_.exponential;
    options.interarrival = spec_.interarrival;
    options.first_arrival = spec_.first_arrival;
    options.max_jobs = spec_.max_jobs;
    options.steps = spec_.steps;
    for (const BetaSpec& beta : spec_.betas) {
      options.beta = beta;
      workloads_.push_back(std::make_shared<SyntheticWorkload>(options));
    }
    return;
  }
  trace_ = true;
  TraceReadOptions read_options;
  read_options.skip_bad = spec_.skip_bad;
  std::vector<TraceRecord> records =
      read_trace_file(spec_.trace_path, spec_.trace_format, read_options, trace_report_);
  TraceMapping mapping = spec_.mapping;
  mapping.steps = spec_.steps;
  auto base = std::make_shared<TraceWorkload>(std::move(records), mapping, *catalog_, *estimator_,
                                              spec_.betas.front(), spec_.trace_path);
  workloads_.push_back(base);
  for (size_t i = 1; i < spec_.betas.size(); ++i)
    workloads_.push_back(base->with_fallback(spec_.betas[i]));
}

const MappingReport* Experiment::mapping_report() const {
  if (!trace_) return nullptr;
  return &static_cast<const TraceWorkload&>(*workloads_.front()).report();
}

std::vector<GridCell> Experiment::grid(int shard, int shards) const {
  std::vector<GridCell> cells;
  size_t index = 0;
  for (const std::string& policy : spec_.policies)
    for (size_t b = 0; b < spec_.betas.size(); ++b)
      for (std::uint64_t seed : spec_.seeds) {
        if (static_cast<int>(index % shards) == shard) cells.push_back({index, policy, b, seed});
        ++index;
      }
  return cells;
}

EnvironmentConfig Experiment::environment_config(size_t beta, bool record_jobs,
                                                 bool record_timeline) const {
  EnvironmentConfig c;
  c.estimator = estimator_;
  c.workload = workloads_.at(beta);
  c.horizon = spec_.horizon;
  c.shared_cache = shared_cache_;
  c.record_jobs = record_jobs;
  c.record_timeline = record_timeline;
  return c;
}

EpisodeTask Experiment::task(const GridCell& cell, bool record_jobs, bool record_timeline) const {
  EpisodeTask t;
  t.config = environment_config(cell.beta, record_jobs, record_timeline);
  t.config.policy_label = cell.policy;
  t.policy = cell.policy;
  t.seed = cell.seed;
  return t;
}

std::string Experiment::describe() const {
  std::ostringstream out;
  out << spec_.name << " (" << spec_.source << "): profile " << spec_.profile << ", topology "
      << RampTopology(spec_.topology).shape() << ", N = " << spec_.steps << ", horizon "
      << spec_.horizon << "\n  " << workloads_.front()->describe();
  return out.str();
}

}  // namespace pacml::sim
