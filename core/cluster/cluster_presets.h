// The cluster presets and built-in device files compiled into pacml, so that
// `--cluster dgx-a100-16x8` and `device: v100` work without the source tree.
// The texts are generated at build time from contrib/clusters/*.yaml and
// contrib/devices/*.yaml (core/cluster/embed-presets.sh): one source of truth.
#pragma once

#include <string>
#include <vector>

namespace pacml {

struct ClusterPreset {
  const char* name;  // the file name without .yaml
  const char* yaml;  // the file's text
};

const std::vector<ClusterPreset>& cluster_presets();

// The text of contrib/devices/NAME.yaml, or null.
const char* builtin_device_text(const std::string& name);

}  // namespace pacml
