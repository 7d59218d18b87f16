#include "plugin/config.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/policy/gpu_policy.h"
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
    GpuPolicy::parse(name, where);
  } catch (const InputError&) {
    check_policy_name(name, where);
  }
}

std::string scalar(const YAML::Node& node, const std::string& where, const std::string& what) {
  if (!node.IsScalar()) throw InputError(where, what + " must be a single value");
  return node.Scalar();
}

double number(const YAML::Node& node, const std::string& where, const std::string& what) {
  return parse_finite_double(scalar(node, where, what), where, what);
}

bool boolean(const YAML::Node& node, const std::string& where, const std::string& what) {
  const std::string v = scalar(node, where, what);
  if (v == "true" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "no" || v == "off") return false;
  throw InputError(where, what + " must be true or false, got '" + v + "'");
}

std::vector<std::string> strings(const YAML::Node& node, const std::string& where,
                                 const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) out.push_back(scalar(item, where, what + " entries"));
  } else if (!node.IsNull()) {
    throw InputError(where, what + " must be a value or a list");
  }
  return out;
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
      const int c = static_cast<int>(
          parse_integer(scalar(kv.second[0], w, "c"), 0, ramp.groups - 1, w, name + " group c"));
      const int r = static_cast<int>(
          parse_integer(scalar(kv.second[1], w, "r"), 0, ramp.racks - 1, w, name + " rack r"));
      const int s = static_cast<int>(parse_integer(
          scalar(kv.second[2], w, "s"), 0, ramp.servers_per_rack - 1, w, name + " server s"));
      std::string& slot = names[topo.index(c, r, s)];
      if (!slot.empty())
        throw InputError(w, "nodes " + slot + " and " + name + " both map to (" +
                                std::to_string(c) + ", " + std::to_string(r) + ", " +
                                std::to_string(s) + ")");
      slot = name;
    }
  } else {
    std::vector<std::string> list;
    for (const std::string& item : strings(node, where, "nodes"))
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

}  // namespace

PluginConfig parse_plugin_config(std::istream& in, const std::string& source) {
  const YAML::Node root = parse_yaml(in, source);
  PluginConfig cfg;
  cfg.source = source;
  if (root.IsNull()) return cfg;  // an empty file: all defaults
  if (!root.IsMap()) throw InputError(source, "pacml.conf must be a YAML map of key: value");
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    // topology first: nodes depend on it
    if (r["topology"]) cfg.ramp = parse_ramp_topology(r["topology"], source);
    std::string policy_where = source;
    for (const auto& kv : r) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      const std::string w = yaml_where(source, v);
      if (key == "topology") {
        continue;
      } else if (key == "policy") {
        cfg.policy = scalar(v, w, key);
        policy_where = w;  // checked once `cluster` is known
      } else if (key == "cluster") {
        cfg.cluster = scalar(v, w, key);
        load_cluster(cfg.cluster, w);  // a preset or a readable, valid file
      } else if (key == "profile") {
        cfg.profile = scalar(v, w, key);
        Profile::by_name(cfg.profile, w);
      } else if (key == "nodes") {
        cfg.nodes = parse_nodes(v, cfg.ramp, source);
      } else if (key == "partitions") {
        cfg.partitions.clear();
        for (const std::string& p : strings(v, w, key))
          for (std::string& name : slurm::expand_hostlist(p, w)) cfg.partitions.push_back(name);
      } else if (key == "on_block") {
        cfg.on_block = parse_on_block(scalar(v, w, key), w);
      } else if (key == "margin") {
        cfg.margin = parse_margin(scalar(v, w, key), w);
      } else if (key == "graph_dirs") {
        cfg.graph_dirs = strings(v, w, key);
        for (const std::string& d : cfg.graph_dirs)
          if (d.empty() || d[0] != '/')
            throw InputError(w, "graph_dirs entries must be absolute paths, got '" + d + "'");
      } else if (key == "user_graph_files") {
        cfg.user_graph_files = boolean(v, w, key);
      } else if (key == "max_graph_bytes") {
        cfg.max_graph_bytes = parse_integer(scalar(v, w, key), 1024, 1L << 32, w, key);
      } else if (key == "decision_log") {
        cfg.decision_log = v.IsNull() ? "" : scalar(v, w, key);
        if (!cfg.decision_log.empty() && cfg.decision_log[0] != '/')
          throw InputError(w,
                           "decision_log must be an absolute path, got '" + cfg.decision_log + "'");
      } else if (key == "time_limit_factor") {
        cfg.time_limit_factor = number(v, w, key);
        if (cfg.time_limit_factor < 1)
          throw InputError(w, "time_limit_factor must be at least 1, got " + v.Scalar());
      } else if (key == "time_limit_extra") {
        cfg.time_limit_extra = slurm::parse_duration_seconds(scalar(v, w, key), w, key);
      } else if (key == "default_steps") {
        cfg.default_steps = parse_integer(scalar(v, w, key), 1, 1000000000, w, key);
      } else if (key == "seed") {
        cfg.seed = parse_integer(scalar(v, w, key), 0, 1L << 62, w, key);
      } else if (key == "annotate") {
        cfg.annotate = scalar(v, w, key);
        if (cfg.annotate != "admin_comment" && cfg.annotate != "comment")
          throw InputError(
              w, "annotate must be 'admin_comment' or 'comment', got '" + cfg.annotate + "'");
      } else if (key == "reservation_ttl") {
        cfg.reservation_ttl = parse_non_negative(scalar(v, w, key), w, key);
      } else if (key == "resolve_job_ids") {
        cfg.resolve_job_ids = boolean(v, w, key);
      } else {
        throw InputError(
            yaml_where(source, kv.first),
            "unknown key '" + key +
                "' (known: policy, profile, topology, cluster, nodes, partitions, on_block, "
                "margin, "
                "graph_dirs, "
                "user_graph_files, max_graph_bytes, decision_log, time_limit_factor, "
                "time_limit_extra, default_steps, seed, annotate, reservation_ttl, "
                "resolve_job_ids)");
      }
    }
    check_policy_for(cfg, cfg.policy, policy_where);
    return cfg;
  });
}

void check_policy_for(const PluginConfig& cfg, const std::string& policy,
                      const std::string& where) {
  if (cfg.cluster.empty())
    check_policy_name(policy, where);
  else
    GpuPolicy::parse(policy, where);
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

SchedParams parse_sched_params(const std::string& text) {
  static const char* const kWhere = "SchedulerParameters";
  static const char* const kKnown =
      " (known: pacml_policy, pacml_conf, pacml_on_block, pacml_margin)";
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
  return out;
}

void apply_sched_params(PluginConfig& cfg, const SchedParams& sched) {
  if (sched.policy) cfg.policy = *sched.policy;
  if (sched.on_block) cfg.on_block = *sched.on_block;
  if (sched.margin) cfg.margin = *sched.margin;
}

}  // namespace pacml::plugin
