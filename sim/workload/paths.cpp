#include "sim/workload/paths.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/util/error.h"

namespace pacml::sim {

namespace fs = std::filesystem;

std::string expand_variables(const std::string& text, const std::string& where) {
  std::string out;
  size_t i = 0;
  if (text.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    out = home ? home : "";
    out += "/";
    i = 2;
  }
  while (i < text.size()) {
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    const size_t close = text.find('}', i + 2);
    if (close == std::string::npos) throw InputError(where, "unterminated '${' in '" + text + "'");
    std::string inner = text.substr(i + 2, close - i - 2), fallback;
    bool has_fallback = false;
    if (const size_t dash = inner.find(":-"); dash != std::string::npos) {
      fallback = inner.substr(dash + 2);
      inner = inner.substr(0, dash);
      has_fallback = true;
    }
    const char* value = std::getenv(inner.c_str());
    if (value && *value)
      out += value;
    else if (has_fallback)
      out += fallback;
    else
      throw InputError(where, "environment variable " + inner + " is not set (in '" + text + "')");
    i = close + 1;
  }
  return out;
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string resolve_path(const std::string& raw, const std::string& base_dir,
                         const std::string& where) {
  const std::string path = expand_variables(raw, where);
  if (path.empty()) throw InputError(where, "empty path");
  if (fs::path(path).is_absolute()) return path;
  std::error_code ec;
  fs::path dir = fs::absolute(base_dir.empty() ? "." : base_dir, ec);
  const fs::path first = dir / path;
  for (int guard = 0; guard < 64; ++guard) {
    const fs::path candidate = dir / path;
    if (fs::exists(candidate, ec)) return candidate.lexically_normal().string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return first.lexically_normal().string();
}

std::string executable_dir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  const std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::vector<std::string> model_search_dirs() {
  const std::string dir = executable_dir();
  return {dir + "/../share/pacml/models", dir + "/../contrib/models",
          dir + "/../../contrib/models"};
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace pacml::sim
