// pacml.conf as a struct: the admin's configuration of the Slurm plugin
// (plugin/config.h reads it; plugin/README.md documents it). It lives in
// core/config beside its key table (plugin_config_keys.h), which binds each
// key to its member and takes the key's default from the member, so that
// the `pacml` command prints the keys without including the plugin.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/cluster/ramp_topology.h"
#include "core/parallel/throughput_table.h"
#include "core/world.h"

namespace pacml::plugin {

struct SiteCorrection;  // plugin/step_correction_source.h: a loaded correction file

enum class OnBlock { kReject, kQueue };

struct PluginConfig {
  // Each member below that is a key of pacml.conf is bound to it, and its
  // initial value is the key's documented default (core/config/plugin_config_keys.cpp).
  std::string source;                   // file it came from (for messages)
  std::string policy = "min_feasible";  // baseline name or pacml:WEIGHTS
  // gpu: jobs get k GPUs chosen by a GPU policy with the physical model
  // (doc/PHYSICAL.md) on `cluster`, else on the paper's cluster of shape
  // `ramp`; paper: the paper's simulator (degrees on RAMP blocks, its time
  // units, the reference profile), for parity with the paper. pacml.conf's
  // `world:`, or the older `profile:` (physical = gpu, reference = paper).
  World world = World::kGpu;
  RampParams ramp;  // RAMP shape (default 4x4x2)
  // A GPU cluster (plugin/README.md, "GPU cluster"): a preset name or a
  // cluster file (core/cluster/cluster_spec.h). Set: `topology` and `nodes`
  // are not used. "" = the RAMP cluster of `topology`.
  std::string cluster;
  // In the GPU world: a directory of measured throughput (ElasticFlow's
  // MODEL.csv, core/parallel/throughput_table.h) that overrides the analytic
  // step time where it has the (model, batch, GPUs). Read when pacml.conf is,
  // so that a bad cell is reported at load as file:line. "" = none.
  std::string throughput_table;
  std::shared_ptr<const ThroughputTable> throughput;  // its contents; null = none
  // In the GPU world: the site's correction of predicted step
  // times (`pacml calibrate --history`, plugin/step_correction_source.h),
  // read when pacml.conf is so that a bad line is named at load. "" = none.
  std::string correction;
  std::shared_ptr<const SiteCorrection> step_correction;  // its contents; null = none
  // Slurm node name of each server index (c·R + r)·S + s; "" = no node.
  // Empty vector: the managed partition's nodes in Slurm's order.
  std::vector<std::string> nodes;
  std::vector<std::string> partitions;  // managed partitions; empty = the default one
  OnBlock on_block = OnBlock::kReject;
  // Relative safety margin on the predicted JCT: a degree meets the job's
  // requirement only if JCT × (1 + margin) ≤ the requirement. [0, 10).
  double margin = 0;
  std::vector<std::string> graph_dirs;     // admin directories for bare graph names
  bool user_graph_files = true;            // users' own files, sent by the SPANK plugin
  long max_graph_bytes = 512L << 10;       // graph file size limit
  long max_graph_ops = 2000;               // graph layer (forward op) limit
  long max_graph_edges = 4000;             // graph edge limit (a RAMP decision walks them)
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

// Value checks shared by pacml.conf and slurm.conf's SchedulerParameters;
// each throws InputError(where, ...) naming the value.
OnBlock parse_on_block(const std::string& value, const std::string& where);
const char* on_block_name(OnBlock on_block);
double parse_margin(const std::string& value, const std::string& where);

}  // namespace pacml::plugin
