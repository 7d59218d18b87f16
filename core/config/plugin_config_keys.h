// pacml.conf's keys (the Slurm plugin's configuration, plugin/config.h),
// declared once (core/config/settings_table.h): plugin/config.cpp checks and
// reads pacml.conf through this table, and `pacml config keys pacml.conf`
// prints it for plugin/README.md's generated table. It lives below both so
// that the pacml command lists the keys without including the plugin.
#pragma once

#include "core/config/settings_table.h"

namespace pacml {

const SettingsTable& plugin_config_settings();

}  // namespace pacml
