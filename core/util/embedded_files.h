// Text files compiled into pacml at build time (core/util/embed-files.sh): the
// cluster presets, device files and fitted workloads of contrib/, so the
// built-in defaults work without the source tree and there is one source of
// truth for each (the file in contrib/).
#pragma once

#include <string>
#include <vector>

namespace pacml {

struct EmbeddedFile {
  const char* name;  // the file name without .yaml
  const char* text;  // the file's text
};

using EmbeddedFiles = std::vector<EmbeddedFile>;

// The text of the file called `name`, or null.
inline const char* find_embedded(const EmbeddedFiles& files, const std::string& name) {
  for (const EmbeddedFile& file : files)
    if (name == file.name) return file.text;
  return nullptr;
}

}  // namespace pacml
