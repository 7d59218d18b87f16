// What the engine remembers between decisions and lends to each one
// (EngineState): the servers and GPUs promised to recent decisions, the
// offered GPU load of the last day, the graph cache, the decision log and the
// decision serial number. Kept apart from the Engine class so that the RAMP
// and GPU pipelines (ramp_decision.h, gpu_decision.h) see only this, not the
// configuration reloading around it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "plugin/decision_log.h"
#include "plugin/graph_source.h"

namespace pacml::plugin {

// Servers promised to a recent decision whose job has not started yet:
// slurmctld creates the job only after job_submit returns and starts it a
// moment later, so its nodes still look idle to the next decision.
struct Reservation {
  std::vector<int> servers;
  double until = 0;     // reservation_ttl after the decision
  bool queued = false;  // queued jobs' servers are only avoided when possible
  int gpus = 0;         // a GPU cluster's decision: GPUs held (servers unused)
  uid_t uid = 0;        // whose job it is for: only that user's job releases it
};
using Reservations = std::map<std::string, Reservation>;  // by decision id

// (submission time, GPU-seconds at the requested count) over the last day:
// the offered load a learned GPU policy reads (gpu::DecisionInput::recent_load).
class OfferedLoad {
 public:
  // Adds a submission at `now` asking `gpus` GPUs for `seconds` (nothing when
  // that is not finite) and returns the last day's load per GPU-second of a
  // cluster of `cluster_gpus` GPUs (0 for none).
  double add(double now, int gpus, double seconds, int cluster_gpus);

 private:
  std::deque<std::pair<double, double>> recent_;
  double sum_ = 0;
};

// The engine's state one decision reads and changes, lent under the engine's
// lock (Engine::submit).
struct EngineState {
  GraphSource& graphs;
  DecisionLog& log;
  Reservations& reservations;
  OfferedLoad& offered;
  std::uint64_t& serial;  // of the last decision id handed out

  std::string next_decision_id();
};

}  // namespace pacml::plugin
