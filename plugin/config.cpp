#include "plugin/config.h"

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/config/plugin_config_keys.h"
#include "core/gpu/policy.h"
#include "core/policy/policy_factory.h"
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

// The world a pacml.conf map names with `world:` or the older `profile:`
// (physical = gpu, reference = paper); gpu when neither is given. A value of
// the wrong type or choice is left to the key's own typed read, which names it.
World world_named(const YAML::Node& r) {
  const YAML::Node w = r["world"], p = r["profile"];
  if (w && w.IsScalar()) return w.Scalar() == "paper" ? World::kPaper : World::kGpu;
  return p && p.IsScalar() && p.Scalar() == "reference" ? World::kPaper : World::kGpu;
}

// The files pacml.conf names are read now, not at the first job, so that a
// bad cell or line is named (file:line) when the admin loads pacml.conf.
void load_named_files(const YAML::Node& r, const std::string& source, PluginConfig& cfg) {
  if (!cfg.throughput_table.empty()) {
    try {
      cfg.throughput =
          std::make_shared<const ThroughputTable>(ThroughputTable::load_dir(cfg.throughput_table));
    } catch (const InputError& e) {
      throw InputError(yaml_where(source, r["throughput_table"]),
                       std::string("throughput_table: ") + e.what());
    }
  }
  if (!cfg.correction.empty()) {
    try {
      cfg.step_correction = load_site_correction(cfg.correction);
    } catch (const InputError& e) {
      throw InputError(yaml_where(source, r["correction"]), std::string("correction: ") + e.what());
    }
  }
}

}  // namespace

PluginConfig parse_plugin_config(std::istream& in, const std::string& source) {
  const YAML::Node root = parse_yaml(in, source);
  PluginConfig cfg;
  cfg.source = source;
  if (root.IsNull()) return cfg;  // an empty file: all defaults
  if (!root.IsMap()) throw InputError(source, "pacml.conf must be a YAML map of key: value");
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    // Keys of the GPU world only (cluster, throughput_table, correction) are
    // refused with the paper's simulator.
    plugin_config_settings().check_known(r, source,
                                         std::string("world: ") + world_name(world_named(r)));
    plugin_config_keys().read(r, source, cfg);
    load_named_files(r, source, cfg);
    check_policy_for(cfg, cfg.policy, r["policy"] ? yaml_where(source, r["policy"]) : source);
    return cfg;
  });
}

void check_policy_for(const PluginConfig& cfg, const std::string& policy,
                      const std::string& where) {
  if (cfg.world == World::kGpu)
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

std::string SchedParams::text() const {
  std::string out;
  const auto add = [&](const std::string& token) { out += (out.empty() ? "" : ",") + token; };
  if (conf) add("pacml_conf=" + *conf);
  if (policy) add("pacml_policy=" + *policy);
  if (on_block) add(std::string("pacml_on_block=") + on_block_name(*on_block));
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
