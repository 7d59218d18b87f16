// The cluster presets and built-in device files compiled into pacml, so that
// `--cluster dgx-a100-16x8` and `device: v100` work without the source tree.
// The texts are generated at build time from contrib/clusters/*.yaml and
// contrib/devices/*.yaml (core/util/embed-files.sh): one source of truth.
#pragma once

#include <string>

#include "core/util/embedded_files.h"

namespace pacml {

// contrib/clusters/NAME.yaml, by NAME.
const EmbeddedFiles& cluster_presets();

// contrib/devices/NAME.yaml, by NAME.
const EmbeddedFiles& builtin_device_files();

// The text of contrib/devices/NAME.yaml, or null.
inline const char* builtin_device_text(const std::string& name) {
  return find_embedded(builtin_device_files(), name);
}

}  // namespace pacml
