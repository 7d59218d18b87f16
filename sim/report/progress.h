// A progress bar on stderr for long runs. It draws only when stderr is a
// terminal (or when forced), so CI logs stay readable; at most ~10 redraws
// per second.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace pacml::sim {

class ProgressBar {
 public:
  // enabled: -1 auto (stderr is a TTY), 0 never, 1 always.
  ProgressBar(std::string label, size_t total, int enabled = -1);
  ~ProgressBar();
  void update(size_t done);
  void finish();

 private:
  std::string label_;
  size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace pacml::sim
