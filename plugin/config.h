// pacml.conf: the admin's configuration of the Slurm plugin (YAML, next to
// slurm.conf). Every key is optional; unknown keys are errors so that typos
// do not go unnoticed. See contrib/slurm/pacml.conf for a commented example.
#pragma once

#include <istream>
#include <map>
#include <string>
#include <vector>

#include "core/cluster/ramp_topology.h"

namespace pacml::plugin {

enum class OnBlock { kReject, kQueue };

struct PluginConfig {
  std::string source;                   // file it came from (for messages)
  std::string policy = "min_feasible";  // baseline name or pacml:WEIGHTS
  std::string profile = "physical";     // physical (seconds) or reference
  RampParams ramp;                      // RAMP shape (default 4x4x2)
  // Slurm node name of each server index (c·R + r)·S + s; "" = no node.
  // Empty vector: the managed partition's nodes in Slurm's order.
  std::vector<std::string> nodes;
  std::vector<std::string> partitions;  // managed partitions; empty = the default one
  OnBlock on_block = OnBlock::kReject;
  std::vector<std::string> graph_dirs;     // admin directories for bare graph names
  bool user_graph_files = true;            // absolute paths, read with the user's rights
  long max_graph_bytes = 16L << 20;        // graph file size limit
  std::string decision_log;                // JSON-lines log path; "" = none
  double time_limit_factor = 1.2;          // time limit = JCT × factor + extra
  double time_limit_extra = 60;            // seconds
  long default_steps = 50;                 // N when the job gives no --pacml-steps
  long seed = 1;                           // for the random policy
  std::string annotate = "admin_comment";  // admin_comment or comment
  double reservation_ttl = 30;             // s a placed-but-not-started job's nodes stay reserved
  bool resolve_job_ids = true;             // look up Slurm job ids for the decision log

  int num_servers() const { return ramp.groups * ramp.racks * ramp.servers_per_rack; }
};

// Parses pacml.conf text; throws InputError("source:line", ...) naming the
// first bad value. Also checks that the policy can be built.
PluginConfig parse_plugin_config(std::istream& in, const std::string& source);
PluginConfig load_plugin_config(const std::string& path);

}  // namespace pacml::plugin
