// libFuzzer entry points (--enable-fuzzing builds): the target is chosen once
// in LLVMFuzzerInitialize, then every input goes to it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_target.h"

namespace {
const pacml::fuzz::Target* g_target = nullptr;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g_target = &pacml::fuzz::select_target(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pacml::fuzz::run_target(*g_target, std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
