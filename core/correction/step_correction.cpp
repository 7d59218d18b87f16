#include "core/correction/step_correction.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pacml {

const CorrectionFactor* StepCorrection::find(const std::string& model,
                                             const std::string& device) const {
  for (const auto& key :
       {std::make_pair(model, device), std::make_pair(model, std::string(kAnyName)),
        std::make_pair(std::string(kAnyName), device),
        std::make_pair(std::string(kAnyName), std::string(kAnyName))}) {
    const auto it = factors.find(key);
    if (it != factors.end()) return &it->second;
  }
  return nullptr;
}

double compute_share(const ParallelPlan& plan) {
  if (!(plan.step_time > 0) || plan.measured) return 1;
  const double exposed_comm = std::max(0.0, plan.comm - plan.overlap);
  return std::clamp(1 - exposed_comm / plan.step_time, 0.0, 1.0);
}

double corrected_step_time(const CorrectionFactor& factor, double step_time, double share) {
  const double s = std::clamp(share, 0.0, 1.0);
  return step_time * (factor.compute * s + factor.comm * (1 - s));
}

double corrected_step_time(const StepCorrection& correction, const std::string& model,
                           const std::string& device, const ParallelPlan& plan) {
  const CorrectionFactor* factor = correction.find(model, device);
  if (!factor) return plan.step_time;
  return corrected_step_time(*factor, plan.step_time, compute_share(plan));
}

std::uint32_t corrected_time_limit_minutes(double corrected_seconds, double factor,
                                           double extra_seconds, std::uint32_t user_minutes) {
  constexpr double kMaxMinutes = std::numeric_limits<std::uint32_t>::max() - 1.0;
  double minutes = std::ceil((corrected_seconds * factor + extra_seconds) / 60);
  // NaN or infinite (a job that cannot run): no limit of pacml's own.
  if (!std::isfinite(minutes)) return user_minutes;
  minutes = std::clamp(minutes, 1.0, kMaxMinutes);
  return std::max(static_cast<std::uint32_t>(minutes), user_minutes);
}

}  // namespace pacml
