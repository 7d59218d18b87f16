// `pacml config keys [FORMAT] [--markdown]` — the keys each file format
// accepts, from the one table its parser reads them with
// (core/config/settings_table.h). The settings tables in doc/ are this
// command's --markdown output (tests/docs/settings_tables_test.sh).
#include <functional>
#include <iostream>
#include <map>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/config/plugin_config_keys.h"
#include "core/config/settings_table.h"
#include "core/config/train_config_keys.h"
#include "core/correction/correction_file.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/zoo/device_model.h"
#include "sim/cli/command.h"
#include "sim/cli/table.h"
#include "sim/experiment/experiment_keys.h"
#include "sim/gpu/fitted_workload.h"

namespace pacml::cli {
namespace {

// Each file format and the table its parser declares.
const std::map<std::string, std::function<const SettingsTable&()>>& formats() {
  static const std::map<std::string, std::function<const SettingsTable&()>> all = {
      {"cluster", cluster_settings},
      {"correction", correction_settings},
      {"correction.entries", correction_entry_settings},
      {"device", device_settings},
      {"device.host", device_host_settings},
      {"pacml.conf", plugin_config_settings},
      {"topology", ramp_topology_settings},
      {"experiment", sim::experiment_settings},
      {"experiment.seeds", sim::seed_range_settings},
      {"workload.synthetic", sim::synthetic_workload_settings},
      {"workload.trace", sim::trace_workload_settings},
      {"workload.fitted", sim::fitted_workload_settings},
      {"workload.params", gpu::fitted_params_settings},
      {"workload.params.model", gpu::fitted_model_settings},
      {"workload.params.iterations", gpu::fitted_iterations_settings},
      {"workload.params.slack", gpu::fitted_slack_settings},
      {"train", train_settings},
      {"train.ppo", train_ppo_settings},
      {"train.warm_start", train_warm_start_settings},
      {"train.warm_start.search", train_search_settings},
      {"train.network", train_network_settings},
      {"train.eval", train_eval_settings},
      {"train.gpu", gpu_train_settings},
      {"train.gpu.scenarios", gpu_train_scenario_settings},
      {"train.gpu.optimiser", gpu_train_optimiser_settings},
      {"train.gpu.network", gpu_train_network_settings},
  };
  return all;
}

std::string format_names() {
  std::string names;
  for (const auto& [name, table] : formats()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

void print_table(const SettingsTable& settings) {
  Table table({"key", "type", "range / values", "default", "meaning"});
  for (const SettingKey& k : settings.keys())
    table.add({k.name, setting_type_name(k.type), setting_range_text(k), k.default_text,
               k.doc + (k.only_when.empty() ? "" : " (" + k.only_when + " only)")});
  table.print(std::cout);
}

int keys(const std::vector<std::string>& argv) {
  Args args("pacml config keys [FORMAT] [--markdown]",
            "The keys a file format accepts, with their type, range, unit, default and\n"
            "meaning: the table its parser reads them with. Formats: " +
                format_names() + ".");
  std::string format;
  bool markdown = false;
  args.bind_positional("format", "the file format (all of them when omitted)", format, false);
  args.bind_flag("markdown", "a Markdown table, as in doc/", markdown);
  if (!args.parse(argv)) return 0;
  std::vector<std::string> chosen;
  if (!format.empty()) chosen.push_back(format);
  if (chosen.empty())
    for (const auto& [name, table] : formats()) chosen.push_back(name);
  for (const std::string& name : chosen) {
    const auto it = formats().find(name);
    if (it == formats().end())
      throw InputError("FORMAT", "unknown file format '" + name + "'; known: " + format_names());
    if (chosen.size() > 1) std::cout << (markdown ? "### " : "") << name << "\n";
    if (markdown)
      std::cout << it->second().markdown();
    else
      print_table(it->second());
    if (chosen.size() > 1) std::cout << "\n";
  }
  return 0;
}

int config_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::cout << "usage: pacml config keys [FORMAT] [--markdown]\n\n"
                 "The keys of pacml's file formats. 'pacml config keys --help' for details.\n";
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] != "keys")
    throw InputError("pacml config", "unknown subcommand '" + argv[0] + "'; known: keys");
  return keys(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace

PACML_COMMAND("config", "the keys of pacml's file formats (cluster, device, pacml.conf, ...)",
              config_command);

}  // namespace pacml::cli
