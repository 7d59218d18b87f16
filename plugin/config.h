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
#include "core/config/plugin_config.h"
#include "core/config/plugin_config_keys.h"
#include "core/parallel/throughput_table.h"
#include "core/world.h"
#include "plugin/step_correction_source.h"

namespace pacml::plugin {

// The cluster a GPU-deciding configuration plans on: `cluster`, else the
// paper's cluster of `topology` (one A100 per server unless Slurm's GRES
// says more). Throws InputError naming the source.
ClusterSpec gpu_cluster_of(const PluginConfig& cfg);

// Where "pacml:NAME" policies are looked up inside slurmctld after
// $PACML_MODELS_DIR: the models `make install` put in PREFIX/share/pacml/models
// (model/local.mk), so an installed pacml finds pacml:default with no
// environment variable.
const std::vector<std::string>& installed_model_dirs();

// Checks a policy name: a GPU policy in the GPU world, the paper simulator's
// policy in the paper world; throws InputError(where, ...).
void check_policy_for(const PluginConfig& cfg, const std::string& policy, const std::string& where);

// Parses pacml.conf text; throws InputError("source:line", ...) naming the
// first bad value. Also reads the files it names and checks that the policy
// can be built. Its keys are declared once and bound to PluginConfig's
// members in plugin_config_keys() (core/config/plugin_config_keys.h): what
// the parser reads, the defaults, the unknown-key check and plugin/README.md's
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

}  // namespace pacml::plugin
