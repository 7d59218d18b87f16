#include "sim/report/progress.h"

#include <unistd.h>

#include <cstdio>

namespace pacml::sim {

ProgressBar::ProgressBar(std::string label, size_t total, int enabled)
    : label_(std::move(label)),
      total_(total),
      enabled_(enabled < 0 ? isatty(STDERR_FILENO) != 0 : enabled != 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_ - std::chrono::seconds(1)) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(size_t done) {
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const int width = 30;
  const double fraction = total_ ? static_cast<double>(done) / total_ : 1.0;
  const int filled = static_cast<int>(fraction * width);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  std::fprintf(stderr, "\r%s [%s%s] %zu/%zu  %.0f s elapsed, ~%.0f s left ", label_.c_str(),
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done,
               total_, elapsed, eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_ || finished_) return;
  update(total_);
  finished_ = true;
  std::fprintf(stderr, "\n");
}

}  // namespace pacml::sim
