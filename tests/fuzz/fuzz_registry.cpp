// The registry of fuzz targets and the selection of one from the command line.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/util/error.h"
#include "tests/fuzz/fuzz_target.h"

namespace pacml::fuzz {
namespace {

std::map<std::string, Target>& registry() {
  static std::map<std::string, Target> all;
  return all;
}

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "pacml-fuzz: %s\nknown targets:", message.c_str());
  for (const Target& t : targets()) std::fprintf(stderr, " %s", t.name.c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

}  // namespace

Registrar::Registrar(const char* name, TargetFn fn) {
  registry()[name] = {name, fn};
}

std::vector<Target> targets() {
  std::vector<Target> list;
  for (const auto& entry : registry()) list.push_back(entry.second);
  return list;
}

const Target* find_target(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::string run_target(const Target& target, const std::string& input) {
  try {
    target.fn(input);
  } catch (const pacml::InputError& e) {
    // The parser rejected bad input with a located message: the expected outcome.
    return e.what();
  }
  return "";
}

const Target& select_target(int* argc, char*** argv) {
  std::string name;
  if (const char* env = std::getenv("PACML_FUZZ_TARGET")) name = env;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* arg = (*argv)[i];
    if (std::strncmp(arg, "-target=", 8) == 0 || std::strncmp(arg, "--target=", 9) == 0) {
      name = std::strchr(arg, '=') + 1;
    } else if (std::strcmp(arg, "-list_targets") == 0 || std::strcmp(arg, "--list") == 0) {
      for (const Target& t : targets()) std::printf("%s\n", t.name.c_str());
      std::exit(0);
    } else {
      (*argv)[out++] = (*argv)[i];
    }
  }
  *argc = out;
  (*argv)[out] = nullptr;
  if (name.empty()) usage_error("no target: give -target=NAME (or set PACML_FUZZ_TARGET)");
  const Target* target = find_target(name);
  if (!target) usage_error("unknown target '" + name + "'");
  setenv("PACML_FUZZ_TARGET", name.c_str(), 1);
  return *target;
}

}  // namespace pacml::fuzz
