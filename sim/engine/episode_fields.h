// EpisodeStats field by field: the one list that the episodes.csv header and
// rows (sim/report/csv.cpp) and the episode JSON records of --json, shards
// and --merge (sim/experiment/summary.cpp) all loop over, so a new metric is
// named once.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/engine/environment.h"

namespace pacml::sim {

struct EpisodeField {
  const char* name;  // the CSV column and the JSON key
  std::variant<std::string EpisodeStats::*, std::uint64_t EpisodeStats::*, long EpisodeStats::*,
               double EpisodeStats::*>
      member;
  // episodes.csv kept its columns when gpu_hours was added to the JSON.
  bool in_csv = true;
  // Shards written before a field existed lack it: it reads as 0.
  bool required_in_json = true;
};

// In episodes.csv column order (the JSON objects sort their keys).
const std::vector<EpisodeField>& episode_fields();

}  // namespace pacml::sim
