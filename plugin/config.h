// pacml.conf: the admin's configuration of the Slurm plugin (YAML, next to
// slurm.conf). Every key is optional; unknown keys are errors so that typos
// do not go unnoticed. See contrib/slurm/pacml.conf for a commented example.
//
// The most used settings can also be given in slurm.conf's
// SchedulerParameters (pacml_policy=, pacml_conf=, pacml_on_block=,
// pacml_margin=), which Slurm accepts and passes on as slurm_conf.sched_params.
// Precedence: SchedulerParameters > pacml.conf > built-in default. Users'
// --pacml-* options are job requirements only and never override these.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/ramp_topology.h"
#include "core/config/plugin_config_keys.h"
#include "core/parallel/throughput_table.h"
#include "plugin/step_correction_source.h"

namespace pacml::plugin {

enum class OnBlock { kReject, kQueue };

struct PluginConfig {
  std::string source;                   // file it came from (for messages)
  std::string policy = "min_feasible";  // baseline name or pacml:WEIGHTS
  // physical: jobs get k GPUs chosen by a GPU policy (core/gpu/policy.h)
  // with the physical model (doc/PHYSICAL.md) on `cluster`, else on the
  // paper's cluster of shape `ramp`; reference: the paper's simulator
  // (degrees on RAMP blocks, its time units), for parity with the paper.
  std::string profile = "physical";
  RampParams ramp;  // RAMP shape (default 4x4x2)
  // A GPU cluster (plugin/README.md, "GPU cluster"): a preset name or a
  // cluster file (core/cluster/cluster_spec.h). Set: `topology` and `nodes`
  // are not used. "" = the RAMP cluster of `topology`.
  std::string cluster;
  // With the physical profile: a directory of measured throughput (ElasticFlow's
  // MODEL.csv, core/parallel/throughput_table.h) that overrides the analytic
  // step time where it has the (model, batch, GPUs). Read when pacml.conf is,
  // so that a bad cell is reported at load as file:line. "" = none.
  std::string throughput_table;
  std::shared_ptr<const ThroughputTable> throughput;  // its contents; null = none
  // With the physical profile: the site's correction of predicted step
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
  // Whether jobs get GPU counts from the physical model (plugin/README.md,
  // "GPU cluster"), not degrees from the paper's simulator (profile reference).
  bool decides_gpus() const { return !cluster.empty() || profile != "reference"; }
};

// The cluster a GPU-deciding configuration plans on: `cluster`, else the
// paper's cluster of `topology` (one A100 per server unless Slurm's GRES
// says more). Throws InputError naming the source.
ClusterSpec gpu_cluster_of(const PluginConfig& cfg);

// Where "pacml:NAME" policies are looked up inside slurmctld after
// $PACML_MODELS_DIR: the models `make install` put in PREFIX/share/pacml/models
// (model/local.mk), so an installed pacml finds pacml:default with no
// environment variable.
const std::vector<std::string>& installed_model_dirs();

// Checks a policy name: a GPU policy when the configuration decides GPUs
// (decides_gpus()), the paper simulator's policy otherwise; throws InputError(where, ...).
void check_policy_for(const PluginConfig& cfg, const std::string& policy, const std::string& where);

// Parses pacml.conf text; throws InputError("source:line", ...) naming the
// first bad value. Also checks that the policy can be built. Its keys are
// declared once, in plugin_config_settings() (core/config/plugin_config_keys.h):
// what the parser reads, the unknown-key check and plugin/README.md's
// settings table (`pacml config keys pacml.conf`).
PluginConfig parse_plugin_config(std::istream& in, const std::string& source);
PluginConfig load_plugin_config(const std::string& path);

// The pacml_* tokens of slurm.conf's SchedulerParameters.
struct SchedParams {
  std::optional<std::string> conf;  // pacml_conf=PATH (absolute): pacml.conf to read
  std::optional<std::string> policy;
  std::optional<OnBlock> on_block;
  std::optional<double> margin;
  bool empty() const { return !conf && !policy && !on_block && !margin; }
  // "pacml_policy=fixed:4,pacml_margin=0.1" (the pacml tokens given, in a fixed order)
  std::string text() const;
};

// Parses SchedulerParameters (comma-separated tokens; tokens not starting
// with "pacml_" belong to Slurm and are ignored). A bad pacml token (an
// unknown pacml_* key, a missing or bad value, a key given twice) throws
// InputError("SchedulerParameters", ...) naming it; with `errors`, each bad
// token's message is added there instead and the good tokens are returned,
// so that what is in force depends on slurm.conf's text alone, not on what
// came before it (from Slurm 23.11 on, a reconfigure starts a new slurmctld).
SchedParams parse_sched_params(const std::string& text, std::vector<std::string>* errors = nullptr);

// Applies the SchedulerParameters settings over a pacml.conf (they win;
// pacml_conf only chooses the file and is not applied here).
void apply_sched_params(PluginConfig& cfg, const SchedParams& sched);

// Shared value checks (pacml.conf and SchedulerParameters).
OnBlock parse_on_block(const std::string& value, const std::string& where);
double parse_margin(const std::string& value, const std::string& where);

}  // namespace pacml::plugin
