// pacml's fuzz targets: one small file per parser.
//
// A target is a function that feeds one input to one parser. It registers
// itself under a name with PACML_FUZZ_TARGET, so adding a target means adding
// one fuzz_<name>.cpp file (plus its line in tests/fuzz/local.mk and a seed
// folder tests/fuzz/corpus/<name>/):
//
//   #include "tests/fuzz/fuzz_target.h"
//   #include "core/graph/pipedream_reader.h"
//
//   static void fuzz_pipedream(const std::string& input) {
//     std::istringstream in(input);
//     pacml::read_pipedream(in, "fuzz.txt");
//   }
//   PACML_FUZZ_TARGET("pipedream", fuzz_pipedream);
//
// The dispatcher (fuzz_registry.cpp) catches pacml::InputError — the expected
// rejection of bad input — and nothing else: any other exception, a crash, a
// sanitizer report, a leak or a timeout is a bug.
//
// All targets live in one binary, tests/fuzz/pacml-fuzz, which picks its
// target from `-target=NAME` (or $PACML_FUZZ_TARGET). Built with
// --enable-fuzzing it is a libFuzzer binary; otherwise it replays files
// (the seed corpora and the committed crash reproducers) through the same
// targets, so every build checks that the found bugs stay fixed.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pacml::fuzz {

using TargetFn = void (*)(const std::string& input);

struct Target {
  std::string name;
  TargetFn fn = nullptr;
};

struct Registrar {
  Registrar(const char* name, TargetFn fn);
};

// All registered targets, sorted by name.
std::vector<Target> targets();
// The target called `name`, or nullptr.
const Target* find_target(const std::string& name);
// Runs `target` on one input; swallows pacml::InputError only and returns
// its message ("" when the input was accepted).
std::string run_target(const Target& target, const std::string& input);
// Handles `-target=NAME` / $PACML_FUZZ_TARGET and `-list_targets`: removes
// the flag from argv, exports PACML_FUZZ_TARGET (so libFuzzer's child
// processes inherit it) and returns the chosen target. Exits with a message
// when the target is missing or unknown; prints the names and exits 0 for
// -list_targets.
const Target& select_target(int* argc, char*** argv);

}  // namespace pacml::fuzz

// A property a parser promises for the inputs it accepts ("β is in (0, 1]");
// when it does not hold the target throws std::logic_error, which is a crash.
#define PACML_FUZZ_CHECK(condition, what)                                                \
  do {                                                                                   \
    if (!(condition)) throw std::logic_error(std::string("property failed: ") + (what)); \
  } while (0)

#define PACML_FUZZ_TARGET(name, fn) \
  static const ::pacml::fuzz::Registrar pacml_fuzz_registrar_##fn(name, fn)
