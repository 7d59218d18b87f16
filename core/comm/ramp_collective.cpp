#include "core/comm/ramp_collective.h"

#include <algorithm>
#include <cmath>

namespace pacml {
namespace {

constexpr double kMemoryBandwidth = 2e12;  // MEM: reduction reads/writes, bytes/s
constexpr double kPeakCompute = 130e12;    // PEAK: reduction arithmetic, FLOP/s

// Transceivers usable between d parties when each server has x of them.
double usable_transceivers(int d, int x) {
  if (d == 1) return 0;
  return std::min(static_cast<double>(x), std::floor(static_cast<double>(x) / (d - 1)));
}

}  // namespace

double one_to_one_time(double bytes, const RampTopology& t) {
  const RampParams& p = t.params();
  return p.propagation_latency + 2 * p.io_latency + bytes / t.channel_bandwidth();
}

double collective_time(const CollectiveSpan& span, const RampTopology& t) {
  if (span.servers <= 1) return 0;
  const RampParams& p = t.params();
  const int x = t.groups();
  const double per_transceiver = t.channel_bandwidth() / x;  // D = BW / x
  // The all-reduce runs level by level: groups, ids within groups, racks, then
  // the remainder; each level shrinks the message it passes on.
  const int levels[4] = {span.groups, std::min(span.groups, span.ids), span.racks,
                         static_cast<int>(std::ceil(static_cast<double>(span.ids) / x))};
  double comm = 0, comp = 0;
  double message = std::ceil(span.message_bytes / levels[0]);
  for (int i = 0; i < 4; ++i) {
    if (i > 0) message = std::ceil(message / levels[i]);
    const int parties = levels[i];
    if (parties <= 1) continue;
    const double rounds = std::ceil(std::log2(static_cast<double>(parties)));
    comp += (rounds * message / 2) /
            std::min(kMemoryBandwidth * rounds / (2.0 * (parties + 1)), kPeakCompute);
    comm += p.propagation_latency + 2 * p.io_latency +
            message / (usable_transceivers(parties, x) * per_transceiver);
  }
  return 2 * comm + comp;
}

}  // namespace pacml
