// What the graph targets do with a graph that parsed: everything a user's
// graph goes through next (validation, the training-step graph, and one
// estimate on a small RAMP cluster), so a value the reader lets through but a
// later stage cannot handle is found too.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/cluster/cluster_state.h"
#include "core/graph/job_graph.h"
#include "core/jct/estimator.h"

namespace pacml::fuzz {

inline void exercise_graph(LayerGraph graph) {
  // Large graphs would make each input slow without reaching new parser code.
  if (graph.layers.size() > 64) return;
  const JobGraphPtr job = make_job_graph(std::move(graph));
  static const JctEstimator estimator(RampTopology::parse("2x2x2"), Profile::physical(), 2);
  static const ClusterState empty(estimator.topology());
  const double sequential = estimator.sequential_jct(*job);
  const Estimate e = estimator.estimate(*job, 4, 0.5, empty);
  // A graph the readers accept must have a finite sequential JCT and, when
  // placed, a finite JCT: every consumer (the simulator, the plugin's time
  // limits) computes with them.
  if (!std::isfinite(sequential) || sequential < 0)
    throw std::logic_error("accepted graph has JCT_seq " + std::to_string(sequential));
  if (e.placed && !(std::isfinite(e.jct) && e.jct >= 0))
    throw std::logic_error("accepted graph has JCT " + std::to_string(e.jct));
}

}  // namespace pacml::fuzz
