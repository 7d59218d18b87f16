// pacml.conf's keys (the Slurm plugin's configuration, core/config/plugin_config.h),
// declared once and bound to PluginConfig's members (core/config/bound_settings.h):
// plugin/config.cpp checks and reads pacml.conf through this table, and
// `pacml config keys pacml.conf` prints it for plugin/README.md's generated
// table. It lives below both so that the pacml command lists the keys
// without including the plugin.
#pragma once

#include "core/config/bound_settings.h"
#include "core/config/plugin_config.h"

namespace pacml {

// Reading leaves the files a key names unread (throughput_table,
// correction): the plugin loads them, so that a bad one is named at load.
const BoundSettings<plugin::PluginConfig>& plugin_config_keys();
const SettingsTable& plugin_config_settings();  // plugin_config_keys().table()

}  // namespace pacml
