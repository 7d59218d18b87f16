#include "core/config/plugin_config_keys.h"

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {

namespace {

using plugin::PluginConfig;
using T = SettingType;
using Binding = BoundSettings<PluginConfig>::Binding;
using Reader = BoundSettings<PluginConfig>::Reader;

// A list that may be empty (`partitions:` with nothing after it).
std::vector<std::string> list_or_empty(const SettingsTable& keys, const YAML::Node& map,
                                       const std::string& source, const std::string& key) {
  return map[key].IsNull() ? std::vector<std::string>{} : keys.list(map, source, key);
}

std::vector<std::string> absolute_paths(std::vector<std::string> paths, const std::string& key,
                                        const std::string& where) {
  for (const std::string& d : paths)
    if (d.empty() || d[0] != '/')
      throw InputError(where, key + " entries must be absolute paths, got '" + d + "'");
  return paths;
}

// A key naming an absolute path into `member`.
Reader absolute_path_into(std::string PluginConfig::*member, const std::string& key) {
  return [member, key](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
                       PluginConfig& cfg) {
    cfg.*member = keys.text(r, source, key);
    absolute_paths({cfg.*member}, key, yaml_where(source, r[key]));
  };
}

// nodes: "n[1-32]" | [n1, n2, …] | {n1: [c, r, s], …} on the topology read before.
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

// `profile:` is `world:`'s older name; given with `world:` (read before it, in
// table order) the two must agree.
void read_profile(const SettingsTable& keys, const YAML::Node& r, const std::string& source,
                  PluginConfig& cfg) {
  cfg.world = world_of_profile(keys.choice(r, source, "profile"),
                               r["world"] ? std::optional<World>(cfg.world) : std::nullopt,
                               yaml_where(source, r["profile"]), "profile:", "world:");
}

// "1:00" for 60 s: Slurm's MM:SS, as time_limit_extra is written.
std::string minutes_seconds_text(double seconds) {
  const long s = std::lround(seconds);
  const std::string ss = std::to_string(s % 60);
  return std::to_string(s / 60) + ":" + (ss.size() < 2 ? "0" + ss : ss);
}

// What pacml decides with: the policy, the GPU cluster, its measured and corrected step times.
std::vector<Binding> decision_keys(const PluginConfig& d) {
  return {
      bind(SettingKey("policy", T::kText,
                      "world gpu: requested, min_feasible, para_max, fixed:K, random, capped:X or "
                      "pacml:default (the learned GPU policy); paper: the paper's baselines or "
                      "pacml:WEIGHTS. SchedulerParameters: pacml_policy="),
           &PluginConfig::policy, d),
      bind_with<PluginConfig>(
          SettingKey("cluster", T::kText,
                     "a GPU cluster (preset or file) pacml decides k GPUs on with the physical "
                     "model (plugin/README.md, GPU cluster); unset: the paper's cluster of "
                     "topology")
              .only_with("world: gpu"),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.cluster = keys.text(r, source, "cluster");
            load_cluster(cfg.cluster,
                         yaml_where(source, r["cluster"]));  // a preset or a valid file
          }),
      bind_with<PluginConfig>(
          SettingKey("throughput_table", T::kText,
                     "absolute directory of measured iterations/s, one MODEL.csv each "
                     "(ElasticFlow's format); where it has the (model, batch, GPUs) it overrides "
                     "the physical model's step time")
              .only_with("world: gpu"),
          absolute_path_into(&PluginConfig::throughput_table, "throughput_table")),
      bind_with<PluginConfig>(
          SettingKey("correction", T::kText,
                     "absolute path of the site's correction of predicted step times (`pacml "
                     "calibrate --history`, doc/SLURM.md section 11); the decision and the time "
                     "limit use the corrected step time, re-read when the file changes")
              .only_with("world: gpu"),
          absolute_path_into(&PluginConfig::correction, "correction")),
      bind_with<PluginConfig>(
          SettingKey("on_block", T::kChoice,
                     "a job no GPU count serves now: refused, or left to wait in Slurm's queue. "
                     "SchedulerParameters: pacml_on_block=")
              .one_of({"reject", "queue"})
              .defaults_to(plugin::on_block_name(d.on_block)),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.on_block = plugin::parse_on_block(keys.choice(r, source, "on_block"),
                                                  yaml_where(source, r["on_block"]));
          }),
      bind_with<PluginConfig>(
          SettingKey("margin", T::kNumber,
                     "a choice meets the requirement only if JCT x (1 + margin) does; below 10. "
                     "SchedulerParameters: pacml_margin=")
              .range(0, 10)
              .defaults_to(default_text_of(d.margin)),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.margin = plugin::parse_margin(keys.text(r, source, "margin"),
                                              yaml_where(source, r["margin"]));
          })};
}

// Which world, and the paper's RAMP cluster with its nodes and partitions (in
// this order: nodes are read on the topology before them).
std::vector<Binding> world_and_cluster_keys(const PluginConfig& d) {
  return {
      bind_with<PluginConfig>(
          SettingKey("world", T::kChoice,
                     "gpu: k GPUs chosen with the physical model (doc/PHYSICAL.md); paper: "
                     "degrees on RAMP blocks by the paper's simulator, in its units "
                     "(doc/ARCHITECTURE.md section 2)")
              .one_of({"gpu", "paper"})
              .defaults_to(world_name(d.world)),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.world =
                parse_world(keys.choice(r, source, "world"), yaml_where(source, r["world"]));
          }),
      bind_with<PluginConfig>(SettingKey("profile", T::kChoice,
                                         "the name `world` had before: physical = world: gpu, "
                                         "reference = world: paper; still read, so older files "
                                         "load")
                                  .one_of({"physical", "reference"}),
                              read_profile),
      bind_with<PluginConfig>(
          SettingKey("topology", T::kText,
                     "the RAMP cluster without `cluster`: CxRxS or a mapping "
                     "(`pacml config keys topology`)")
              .defaults_to(RampTopology(d.ramp).shape()),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) { cfg.ramp = parse_ramp_topology(r["topology"], source); }),
      bind_with<PluginConfig>(
          SettingKey("nodes", T::kList,
                     "RAMP cluster: the Slurm node of each server (c*R + r)*S + s: a hostlist, a "
                     "list, or {name: [c, r, s]}")
              .defaults_to("the partition's nodes"),
          [](const SettingsTable&, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) { cfg.nodes = parse_nodes(r["nodes"], cfg.ramp, source); }),
      bind_with<PluginConfig>(
          SettingKey("partitions", T::kList,
                     "partitions pacml decides for; a job naming none goes to the first")
              .defaults_to("the default one"),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.partitions.clear();
            for (const std::string& p : list_or_empty(keys, r, source, "partitions"))
              for (std::string& name :
                   slurm::expand_hostlist(p, yaml_where(source, r["partitions"])))
                cfg.partitions.push_back(name);
          })};
}

// What one submission may cost, the log, the time limits and the rest.
std::vector<Binding> submission_keys(const PluginConfig& d) {
  return {
      bind_with<PluginConfig>(
          SettingKey("graph_dirs", T::kList, "absolute directories that serve bare graph names"),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.graph_dirs = absolute_paths(list_or_empty(keys, r, source, "graph_dirs"),
                                            "graph_dirs", yaml_where(source, r["graph_dirs"]));
          }),
      bind(SettingKey("user_graph_files", T::kBoolean,
                      "users may name their own graph files (read by the SPANK plugin as the "
                      "user)"),
           &PluginConfig::user_graph_files, d),
      bind(SettingKey("max_graph_bytes", T::kInteger,
                      "size limit of a graph file; bounds one submission's parse (Cost bounds)")
               .range(1024, 16777216, "bytes"),
           &PluginConfig::max_graph_bytes, d),
      bind(SettingKey("max_graph_ops", T::kInteger,
                      "limit on a graph's layers; bounds one submission's decision (Cost bounds)")
               .range(1, 100000, "layers"),
           &PluginConfig::max_graph_ops, d),
      bind(SettingKey("max_graph_edges", T::kInteger,
                      "limit on a graph's edges; bounds one submission's decision (Cost bounds)")
               .range(1, 1000000, "edges"),
           &PluginConfig::max_graph_edges, d),
      bind_with<PluginConfig>(
          SettingKey("decision_log", T::kText, "absolute path of the JSON-lines decision log"),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            if (!r["decision_log"].IsNull())
              absolute_path_into(&PluginConfig::decision_log, "decision_log")(keys, r, source, cfg);
          }),
      bind(SettingKey("time_limit_factor", T::kNumber,
                      "a job that states its length gets JCT x factor + extra, never below --time")
               .range(1, 1000),
           &PluginConfig::time_limit_factor, d),
      bind_with<PluginConfig>(
          SettingKey("time_limit_extra", T::kText, "a Slurm duration added to that time limit")
              .defaults_to(minutes_seconds_text(d.time_limit_extra)),
          [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
             PluginConfig& cfg) {
            cfg.time_limit_extra = slurm::parse_duration_seconds(
                keys.text(r, source, "time_limit_extra"), yaml_where(source, r["time_limit_extra"]),
                "time_limit_extra");
          }),
      bind(SettingKey("default_steps", T::kInteger,
                      "steps pacml predicts with when a job gives no length")
               .range(1, 1e9),
           &PluginConfig::default_steps, d),
      bind(SettingKey("seed", T::kInteger, "seed of the random policy")
               .range(0, 4611686018427387904.0),
           &PluginConfig::seed, d),
      bind(SettingKey("annotate", T::kChoice, "where the decision annotation goes")
               .one_of({"admin_comment", "comment"}),
           &PluginConfig::annotate, d),
      bind(SettingKey("reservation_ttl", T::kNumber,
                      "the longest a decided job's resources stay reserved before it starts")
               .range(0, INFINITY, "seconds"),
           &PluginConfig::reservation_ttl, d),
      bind(SettingKey("resolve_job_ids", T::kBoolean,
                      "wait (up to 60 s) for the Slurm job id before writing a log line"),
           &PluginConfig::resolve_job_ids, d)};
}

}  // namespace

const BoundSettings<PluginConfig>& plugin_config_keys() {
  static const BoundSettings<PluginConfig> keys("pacml.conf key", [] {
    const PluginConfig defaults;
    std::vector<Binding> bindings = decision_keys(defaults);
    for (Binding& b : world_and_cluster_keys(defaults)) bindings.push_back(std::move(b));
    for (Binding& b : submission_keys(defaults)) bindings.push_back(std::move(b));
    return bindings;
  }());
  return keys;
}

const SettingsTable& plugin_config_settings() {
  return plugin_config_keys().table();
}

}  // namespace pacml
