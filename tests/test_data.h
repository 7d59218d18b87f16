// Where tests find their inputs. Real profiles live beside the project in
// ../shared/data (never committed); tests that need them skip when absent.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace pacml::testing {

inline std::string shared_data_dir() {
  if (const char* env = std::getenv("PACML_SHARED_DATA")) return env;
  return std::string(PACML_SOURCE_DIR) + "/../shared/data";
}

inline bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

inline std::string pipedream_path(const std::string& model) {
  return shared_data_dir() + "/pipedream/" + model + ".txt";
}

inline std::string fixture(const std::string& name) {
  return std::string(PACML_SOURCE_DIR) + "/tests/fixtures/" + name;
}

}  // namespace pacml::testing

// Skips the current test with a clear message when a shared-data file is missing.
#define PACML_REQUIRE_FILE(path)                                    \
  do {                                                              \
    if (!::pacml::testing::file_exists(path))                       \
      GTEST_SKIP() << "shared data absent: " << (path)              \
                   << " (set PACML_SHARED_DATA to ../shared/data)"; \
  } while (0)
