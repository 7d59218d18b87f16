// Finding the files an experiment or a trace names.
//
// Rule (documented in sim/README.md): "${NAME}" and "${NAME:-default}" expand
// environment variables; "~/" expands to $HOME; an absolute path is used as
// is; a relative path is tried against the base directory (the experiment
// file's directory) and then each of its parent directories in turn — the
// first that exists wins. If none exists, the path relative to the base
// directory is returned (so the error message names it).
#pragma once

#include <string>
#include <vector>

namespace pacml::sim {

// Expands ${NAME}, ${NAME:-default} and a leading "~/". Throws InputError(where, ...)
// for an unterminated "${".
std::string expand_variables(const std::string& text, const std::string& where);

std::string resolve_path(const std::string& path, const std::string& base_dir,
                         const std::string& where);

// The directory part of a path ("." when there is none).
std::string directory_of(const std::string& path);

bool file_exists(const std::string& path);

// `text` quoted for /bin/sh: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text);

// The directory of the running program (/proc/self/exe), "." if unknown.
std::string executable_dir();

// Where "pacml:NAME" looks for NAME.pacw after $PACML_MODELS_DIR, relative to
// the running program (pacml or pacml-train): an installed PREFIX/bin's
// PREFIX/share/pacml/models, then a build directory's repository
// (build/../contrib/models, and one level further up).
std::vector<std::string> model_search_dirs();

}  // namespace pacml::sim
