#include "sim/experiment/experiment.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/gpu/policy.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/experiment_keys.h"
#include "sim/workload/paths.h"
#include "sim/workload/synthetic.h"

namespace pacml::sim {
namespace {

// Policy names are checked once the world is known (the GPU world's are
// gpu::Policy's); a paper-world learned policy's weights are loaded only
// when `check_names` (the trainer may list the model it is about to make).
void check_policies(const YAML::Node& root, const std::string& source, const ExperimentSpec& spec,
                    bool check_names) {
  if (!root["policies"]) return;  // the world's defaults
  const std::string where = yaml_where(source, root["policies"]);
  if (spec.policies.empty()) throw InputError(where, "policies is empty");
  if (spec.world == World::kGpu)
    for (const std::string& p : spec.policies) gpu::Policy::parse(p, where, model_search_dirs());
  else if (check_names)
    for (const std::string& p : spec.policies) check_policy_name(p, where);
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
                                const std::string& base_dir, bool check_policies_named) {
  std::istringstream in(yaml_text);
  // Not const: a missing key of a const node is invalid, and has no Mark()
  // for yaml_where (check_episodes_end names root["horizon"] even when absent).
  YAML::Node root = parse_yaml(in, source);
  ExperimentSpec spec;
  spec.source = source;
  spec.base_dir = base_dir;
  try {
    // The world first: it says which keys apply and the defaults that differ.
    spec.world = experiment_world(root, source);
    const bool gpu = spec.world == World::kGpu;
    experiment_keys().table().check_known(root, source,
                                          gpu ? kFittedExperiment : kPaperStyleExperiment);
    if (!root["pacml_experiment"])
      throw InputError(source, "not a pacml experiment (missing 'pacml_experiment: 1')");
    if (!gpu && !root["workload"]) throw InputError(source, "missing 'workload'");
    // The defaults said in words in the tables (a spec built in code, like
    // `pacml workload run`'s, starts with none).
    spec.seeds = {0};
    if (gpu) {
      spec.policies = {"requested", "min_feasible", "para_max"};
    } else {
      spec.policies = {"para_max"};
      spec.betas = {BetaSpec::parse(kDefaultBeta)};
    }
    experiment_keys().read(root, source, spec);
    check_policies(root, source, spec, check_policies_named);
    if (!gpu) check_episodes_end(spec, yaml_where(source, root["horizon"]));
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
