// Plausible ranges of cluster quantities, shared by the cluster description
// (cluster_spec.h) and the RAMP topology grammar (topology_yaml.h). A value
// outside its range is almost always a unit slip (Gb/s written as bytes/s,
// µs as s), which would make every estimate silently absurd.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace pacml {

struct PlausibleRange {
  double min, max;
  const char* unit;
};
constexpr PlausibleRange kPlausibleBandwidth{1e8, 1e15, "bytes/s"};  // 100 MB/s .. 1 PB/s
constexpr PlausibleRange kPlausibleLatency{0, 1e-2, "seconds"};      // none .. 10 ms
constexpr PlausibleRange kPlausibleMemory{1e8, 1e13, "bytes"};       // 100 MB .. 10 TB

// The number at `node`, refused with "source:line: WHAT = v is outside
// [min, max] unit (a unit slip?)" when out of range.
double yaml_plausible(const YAML::Node& node, const std::string& source, const std::string& what,
                      const PlausibleRange& range);

}  // namespace pacml
