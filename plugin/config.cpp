#include "plugin/config.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/config/plugin_config_keys.h"
#include "core/gpu/policy.h"
#include "core/policy/policy_factory.h"
#include "core/profile.h"
#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml::plugin {
namespace {

void check_any_policy(const std::string& name, const std::string& where) {
  try {
    gpu::Policy::parse(name, where, installed_model_dirs());
  } catch (const InputError&) {
    check_policy_name(name, where, installed_model_dirs());
  }
}

// A list that may be empty (`partitions:` with nothing after it).
std::vector<std::string> list_or_empty(const YAML::Node& map, const std::string& source,
                                       const std::string& key) {
  return map[key].IsNull() ? std::vector<std::string>{}
                           : plugin_config_settings().list(map, source, key);
}

// nodes: "n[1-32]" | [n1, n2, …] | {n1: [c, r, s], …}
std::vector<std::string> parse_nodes(const YAML::Node& node, const RampParams& ramp,
                                     const std::string& source) {
  const std::string where = yaml_where(source, node);
  const RampTopology topo(ramp, where);
  std::vector<std::string> names(topo.num_servers());
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar(), w = yaml_where(source, kv.second);
      if (!kv.second.IsSequence() || kv.second.size() != 3)
        throw InputError(w, "node " + name + ": expected [c, r, s]");
      const int c = static_cast<int>(parse_integer(yaml_scalar(kv.second[0], source, "c"), 0,
                                                   ramp.groups - 1, w, name + " group c"));
      const int r = static_cast<int>(parse_integer(yaml_scalar(kv.second[1], source, "r"), 0,
                                                   ramp.racks - 1, w, name + " rack r"));
      const int s =
          static_cast<int>(parse_integer(yaml_scalar(kv.second[2], source, "s"), 0,
                                         ramp.servers_per_rack - 1, w, name + " server s"));
      std::string& slot = names[topo.index(c, r, s)];
      if (!slot.empty())
        throw InputError(w, "nodes " + slot + " and " + name + " both map to (" +
                                std::to_string(c) + ", " + std::to_string(r) + ", " +
                                std::to_string(s) + ")");
      slot = name;
    }
  } else {
    std::vector<std::string> list;
    for (const std::string& item :
         node.IsNull() ? std::vector<std::string>{} : yaml_strings(node, source, "nodes"))
      for (std::string& n : slurm::expand_hostlist(item, where)) list.push_back(std::move(n));
    if (static_cast<int>(list.size()) > topo.num_servers())
      throw InputError(where, std::to_string(list.size()) + " nodes listed but the RAMP " +
                                  topo.shape() + " cluster has " +
                                  std::to_string(topo.num_servers()) + " servers");
    for (size_t i = 0; i < list.size(); ++i) names[i] = list[i];
  }
  std::set<std::string> seen;
  for (const std::string& n : names)
    if (!n.empty() && !seen.insert(n).second)
      throw InputError(where, "node " + n + " is listed twice");
  return names;
}

std::vector<std::string> absolute_paths(std::vector<std::string> paths, const std::string& key,
                                        const std::string& where) {
  for (const std::string& d : paths)
    if (d.empty() || d[0] != '/')
      throw InputError(where, key + " entries must be absolute paths, got '" + d + "'");
  return paths;
}

// The table is read now, not at the first job, so that a bad cell is named
// (CSV file:line) when the admin loads pacml.conf.
void read_throughput_table(const YAML::Node& r, const std::string& source, PluginConfig& cfg) {
  const std::string where = yaml_where(source, r["throughput_table"]);
  cfg.throughput_table = plugin_config_settings().text(r, source, "throughput_table");
  absolute_paths({cfg.throughput_table}, "throughput_table", where);
  try {
    cfg.throughput =
        std::make_shared<const ThroughputTable>(ThroughputTable::load_dir(cfg.throughput_table));
  } catch (const InputError& e) {
    throw InputError(where, std::string("throughput_table: ") + e.what());
  }
}

// Read now, like the throughput table, so that a bad line is named
// (correction file:line) when the admin loads pacml.conf.
void read_correction_key(const YAML::Node& r, const std::string& source, PluginConfig& cfg) {
  const std::string where = yaml_where(source, r["correction"]);
  cfg.correction = plugin_config_settings().text(r, source, "correction");
  absolute_paths({cfg.correction}, "correction", where);
  try {
    cfg.step_correction = load_site_correction(cfg.correction);
  } catch (const InputError& e) {
    throw InputError(where, std::string("correction: ") + e.what());
  }
}

// The profile a pacml.conf map names (its default, physical, when absent or
// not a plain string: the key's own check reports that).
std::string profile_named(const YAML::Node& r) {
  const YAML::Node p = r["profile"];
  return p && p.IsScalar() && p.Scalar() == "reference" ? "reference" : "physical";
}

// The keys of pacml.conf in table order; each read as the table declares it.
void read_keys(const YAML::Node& r, const std::string& source, PluginConfig& cfg) {
  const SettingsTable& keys = plugin_config_settings();
  auto where = [&](const char* key) { return yaml_where(source, r[key]); };
  if (r["topology"]) cfg.ramp = parse_ramp_topology(r["topology"], source);  // nodes need it
  if (r["policy"]) cfg.policy = keys.text(r, source, "policy");
  if (r["cluster"]) {
    cfg.cluster = keys.text(r, source, "cluster");
    load_cluster(cfg.cluster, where("cluster"));  // a preset or a readable, valid file
  }
  if (r["throughput_table"]) read_throughput_table(r, source, cfg);
  if (r["correction"]) read_correction_key(r, source, cfg);
  if (r["on_block"])
    cfg.on_block = parse_on_block(keys.choice(r, source, "on_block"), where("on_block"));
  if (r["margin"]) cfg.margin = parse_margin(keys.text(r, source, "margin"), where("margin"));
  if (r["profile"]) cfg.profile = keys.choice(r, source, "profile");
  if (r["nodes"]) cfg.nodes = parse_nodes(r["nodes"], cfg.ramp, source);
  if (r["partitions"]) {
    cfg.partitions.clear();
    for (const std::string& p : list_or_empty(r, source, "partitions"))
      for (std::string& name : slurm::expand_hostlist(p, where("partitions")))
        cfg.partitions.push_back(name);
  }
  if (r["graph_dirs"])
    cfg.graph_dirs =
        absolute_paths(list_or_empty(r, source, "graph_dirs"), "graph_dirs", where("graph_dirs"));
  if (r["user_graph_files"]) cfg.user_graph_files = keys.boolean(r, source, "user_graph_files");
  if (r["max_graph_bytes"]) cfg.max_graph_bytes = keys.integer(r, source, "max_graph_bytes");
  if (r["max_graph_ops"]) cfg.max_graph_ops = keys.integer(r, source, "max_graph_ops");
  if (r["max_graph_edges"]) cfg.max_graph_edges = keys.integer(r, source, "max_graph_edges");
  if (r["decision_log"] && !r["decision_log"].IsNull()) {
    cfg.decision_log = keys.text(r, source, "decision_log");
    absolute_paths({cfg.decision_log}, "decision_log", where("decision_log"));
  }
  if (r["time_limit_factor"]) cfg.time_limit_factor = keys.number(r, source, "time_limit_factor");
  if (r["time_limit_extra"])
    cfg.time_limit_extra = slurm::parse_duration_seconds(
        keys.text(r, source, "time_limit_extra"), where("time_limit_extra"), "time_limit_extra");
  if (r["default_steps"]) cfg.default_steps = keys.integer(r, source, "default_steps");
  if (r["seed"]) cfg.seed = keys.integer(r, source, "seed");
  if (r["annotate"]) cfg.annotate = keys.choice(r, source, "annotate");
  if (r["reservation_ttl"]) cfg.reservation_ttl = keys.number(r, source, "reservation_ttl");
  if (r["resolve_job_ids"]) cfg.resolve_job_ids = keys.boolean(r, source, "resolve_job_ids");
}

}  // namespace

PluginConfig parse_plugin_config(std::istream& in, const std::string& source) {
  const YAML::Node root = parse_yaml(in, source);
  PluginConfig cfg;
  cfg.source = source;
  if (root.IsNull()) return cfg;  // an empty file: all defaults
  if (!root.IsMap()) throw InputError(source, "pacml.conf must be a YAML map of key: value");
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    // Keys of the physical profile only (cluster, throughput_table) are
    // refused with the paper's simulator.
    plugin_config_settings().check_known(r, source, "profile: " + profile_named(r));
    read_keys(r, source, cfg);
    if (r["profile"]) Profile::by_name(cfg.profile, yaml_where(source, r["profile"]));
    check_policy_for(cfg, cfg.policy, r["policy"] ? yaml_where(source, r["policy"]) : source);
    return cfg;
  });
}

void check_policy_for(const PluginConfig& cfg, const std::string& policy,
                      const std::string& where) {
  if (cfg.decides_gpus())
    gpu::Policy::parse(policy, where, installed_model_dirs());
  else
    check_policy_name(policy, where, installed_model_dirs());
}

const std::vector<std::string>& installed_model_dirs() {
  static const std::vector<std::string> dirs{PACML_INSTALLED_MODELS_DIR};
  return dirs;
}

ClusterSpec gpu_cluster_of(const PluginConfig& cfg) {
  if (!cfg.cluster.empty()) return load_cluster(cfg.cluster, cfg.source + ": cluster");
  ClusterSpec spec = ClusterSpec::paper(RampTopology(cfg.ramp, cfg.source));
  // Nodes whose GRES show several GPUs get an A100 server's NVSwitch, as in
  // the dgx-a100 presets (contrib/clusters/), so that they can be costed.
  spec.intra_server_bandwidth = 300e9;
  spec.intra_server_latency = 3e-6;
  return spec;
}

PluginConfig load_plugin_config(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return parse_plugin_config(in, path);
}

OnBlock parse_on_block(const std::string& value, const std::string& where) {
  if (value == "reject") return OnBlock::kReject;
  if (value == "queue") return OnBlock::kQueue;
  throw InputError(where, "on_block must be 'reject' or 'queue', got '" + value + "'");
}

double parse_margin(const std::string& value, const std::string& where) {
  const double m = parse_finite_double(value, where, "margin");
  if (!(m >= 0 && m < 10))
    throw InputError(where,
                     "margin must be in [0, 10) (a fraction of the predicted JCT: 0.1 = "
                     "10%), got '" +
                         value + "'");
  return m;
}

std::string SchedParams::text() const {
  std::string out;
  const auto add = [&](const std::string& token) { out += (out.empty() ? "" : ",") + token; };
  if (conf) add("pacml_conf=" + *conf);
  if (policy) add("pacml_policy=" + *policy);
  if (on_block)
    add(std::string("pacml_on_block=") + (*on_block == OnBlock::kQueue ? "queue" : "reject"));
  if (margin) add("pacml_margin=" + exact_number_text(*margin));
  return out;
}

namespace {

// One pacml_* token into `out`; throws InputError naming it.
void parse_sched_token(const std::string& token, std::set<std::string>& seen, SchedParams& out) {
  static const char* const kWhere = "SchedulerParameters";
  static const char* const kKnown =
      " (known: pacml_policy, pacml_conf, pacml_on_block, pacml_margin)";
  const size_t eq = token.find('=');
  const std::string key = token.substr(0, eq);
  if (key != "pacml_policy" && key != "pacml_conf" && key != "pacml_on_block" &&
      key != "pacml_margin")
    throw InputError(kWhere, "unknown pacml token '" + token + "'" + kKnown);
  if (eq == std::string::npos || eq + 1 == token.size())
    throw InputError(kWhere, "'" + token + "': " + key + " needs a value (" + key + "=VALUE)");
  if (!seen.insert(key).second)
    throw InputError(kWhere, "'" + token + "': " + key + " given twice");
  const std::string value = token.substr(eq + 1);
  const std::string where = std::string(kWhere) + ": " + token;
  if (key == "pacml_policy") {
    // RAMP or GPU policy: which one applies depends on pacml.conf's
    // `cluster`, checked when both are known (Engine::refresh_config).
    check_any_policy(value, where);
    out.policy = value;
  } else if (key == "pacml_conf") {
    if (value[0] != '/') throw InputError(where, "pacml_conf must be an absolute path");
    out.conf = value;
  } else if (key == "pacml_on_block") {
    out.on_block = parse_on_block(value, where);
  } else {
    out.margin = parse_margin(value, where);
  }
}

}  // namespace

SchedParams parse_sched_params(const std::string& text, std::vector<std::string>* errors) {
  SchedParams out;
  std::set<std::string> seen;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t b = token.find_first_not_of(" \t"), e = token.find_last_not_of(" \t");
    token = b == std::string::npos ? "" : token.substr(b, e - b + 1);
    if (token.rfind("pacml_", 0) != 0) continue;  // Slurm's own (or empty)
    try {
      parse_sched_token(token, seen, out);
    } catch (const InputError& e) {
      if (!errors) throw;
      errors->push_back(e.what());
    }
  }
  return out;
}

void apply_sched_params(PluginConfig& cfg, const SchedParams& sched) {
  if (sched.policy) cfg.policy = *sched.policy;
  if (sched.on_block) cfg.on_block = *sched.on_block;
  if (sched.margin) cfg.margin = *sched.margin;
}

}  // namespace pacml::plugin
