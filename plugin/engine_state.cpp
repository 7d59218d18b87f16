#include "plugin/engine_state.h"

#include <algorithm>
#include <cmath>

#include "plugin/decision_id.h"

namespace pacml::plugin {

double OfferedLoad::add(double now, int gpus, double seconds, int cluster_gpus) {
  constexpr double kWindow = 24 * 3600.0;
  constexpr std::size_t kMaxKept = 100000;  // a submission storm must not grow it without end
  if (std::isfinite(seconds)) recent_.emplace_back(now, gpus * seconds), sum_ += gpus * seconds;
  while (!recent_.empty() && (recent_.front().first < now - kWindow || recent_.size() > kMaxKept)) {
    sum_ -= recent_.front().second;
    recent_.pop_front();
  }
  return cluster_gpus > 0 ? sum_ / (kWindow * cluster_gpus) : 0;
}

std::string EngineState::next_decision_id() {
  return new_decision_id(++serial);
}

}  // namespace pacml::plugin
