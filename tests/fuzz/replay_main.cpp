// Replay driver (builds without --enable-fuzzing): runs files through a fuzz
// target, the way libFuzzer runs a crash reproducer, so the seed corpora and
// the committed reproducers are checked by every build and compiler.
//
//   pacml-fuzz -target=NAME [-v] FILE|DIR...
//
// -v prints, for each input, whether the parser accepted it or its message.
// Prints "NAME: N inputs" and exits 0 when no input crashed; an input that
// raises anything but pacml::InputError aborts with its file name.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const pacml::fuzz::Target& target = pacml::fuzz::select_target(&argc, &argv);
  std::vector<fs::path> files;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (arg == "-v") {
      verbose = true;
    } else if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else if (!arg.empty() && arg.native()[0] == '-') {
      continue;  // a libFuzzer flag: meaningless when replaying
    } else {
      std::fprintf(stderr, "pacml-fuzz: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  for (const fs::path& file : files) {
    try {
      const std::string rejection = pacml::fuzz::run_target(target, read_file(file));
      if (verbose)
        std::printf("%s: %s\n", file.c_str(),
                    rejection.empty() ? "accepted" : ("rejected: " + rejection).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "pacml-fuzz: %s: %s: uncaught %s\n", target.name.c_str(), file.c_str(),
                   e.what());
      return 1;
    }
  }
  std::printf("%s: %zu inputs, no crash\n", target.name.c_str(), files.size());
  return 0;
}
