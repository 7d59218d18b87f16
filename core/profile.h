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

// How one training step of a partitioned job is timed.
enum class StepModel {
  kLookahead,   // reference: the paper's lookahead over sub-op flows (doc/MODEL.md §6)
  kPhysicalOp,  // physical: the physical model's op strategy (doc/PHYSICAL.md §3)
};

// How long a cached step time (keyed by graph and degree) holds.
enum class JctCacheScope {
  kEpisode,  // reference: the lookahead depends on the placement, which the
             // reference's key ignores; cleared at every reset, as it does
  kShared,   // physical: the op strategy's step depends on graph and degree only
};

struct Profile {
  std::string name;
  // Factor from profile time units (ms) to the unit the lookahead adds
  // communication seconds to: reference 1 (ms and s added unconverted, the
  // reference's quirk), physical 1e-3 (everything in seconds).
  double compute_scale = 1.0;
  EdgeSizeRule edge_sizes = EdgeSizeRule::kReference;
  JctCacheScope cache_scope = JctCacheScope::kEpisode;
  StepModel step_model = StepModel::kLookahead;
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
