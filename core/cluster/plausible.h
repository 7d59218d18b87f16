// Plausible ranges of cluster quantities, shared by the settings tables of the
// cluster description (cluster_spec.h) and the RAMP topology grammar
// (topology_yaml.h). A value outside its range is almost always a unit slip
// (Gb/s written as bytes/s, µs as s), which would make every estimate
// silently absurd.
#pragma once

namespace pacml {

struct PlausibleRange {
  double min, max;
  const char* unit;
};
constexpr PlausibleRange kPlausibleBandwidth{1e8, 1e15, "bytes/s"};  // 100 MB/s .. 1 PB/s
constexpr PlausibleRange kPlausibleLatency{0, 1e-2, "seconds"};      // none .. 10 ms
constexpr PlausibleRange kPlausibleMemory{1e8, 1e13, "bytes"};       // 100 MB .. 10 TB

}  // namespace pacml
