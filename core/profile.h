// The two model profiles of doc/MODEL.md: one code path, a handful of switches.
//
//  reference — reproduces the reference simulator (ddls) and the paper's
//              numbers, quirks included; exists to prove fidelity.
//  physical  — the default for users: consistent units, quirks fixed.
#pragma once

#include <string>

namespace pacml {

enum class EdgeSizeRule {
  kReference,  // doc/MODEL.md §3.2 left column: sizes derived from op memory
  kPhysical,   // an edge carries its activation (or gradient shard)
};

enum class JctCacheKey {
  kModelAndDegree,  // reference: per episode, (model, degree), ignores placement
  kExactShape,      // physical: (graph, split vector, placement shape), shareable
};

struct Profile {
  std::string name;
  // Factor from profile time units (ms) to the unit the lookahead adds
  // communication seconds to: reference 1 (ms and s added unconverted, the
  // reference's quirk), physical 1e-3 (everything in seconds).
  double compute_scale = 1.0;
  EdgeSizeRule edge_sizes = EdgeSizeRule::kReference;
  JctCacheKey cache_key = JctCacheKey::kModelAndDegree;
  // reference: JCT_max is recomputed from the partitioned graph's compute,
  // so floating-point rounding can block a job at β = 1 (resnet18, a = 1).
  bool deadline_from_partitioned_graph = true;
  // Run-time quantum q for split counts, in profile time units (ms).
  double quantum = 0.01;
  // Name of the time unit JCTs are reported in.
  std::string time_unit = "ms";

  static Profile reference();
  static Profile physical();
  // "reference" or "physical"; throws InputError(where, ...) otherwise.
  static Profile by_name(const std::string& name, const std::string& where = "--profile");
};

}  // namespace pacml
