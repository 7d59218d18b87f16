// What the simulator consumes: a stream of arriving jobs.
//
// A Workload is an immutable description (shared by any number of threads);
// start(seed) opens an independent, deterministic stream of JobSpecs in
// arrival order. Synthetic workloads (sim/workload/) draw jobs from a graph
// set; trace workloads (sim/trace/) replay mapped records.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"

namespace pacml::sim {

struct JobSpec {
  double arrival = 0;  // profile time units
  JobGraphPtr graph;
  double beta = 1;     // JCT requirement fraction, (0, 1]
  int steps = 50;      // N, training steps
  std::string id;      // trace job id ("" for synthetic jobs)
  std::string source;  // where it came from ("cluster01.csv:17"), for people
};

class JobStream {
 public:
  virtual ~JobStream() = default;
  // The next job (arrivals non-decreasing), or nullopt when the workload is exhausted.
  virtual std::optional<JobSpec> next() = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Opens a stream; the same seed gives the same jobs.
  virtual std::unique_ptr<JobStream> start(std::uint64_t seed) const = 0;
  // The distinct graphs jobs may use (the job population, e.g. for normalisers).
  virtual std::vector<JobGraphPtr> graphs() const = 0;
  // The β distribution's label for reports ("A", "trace", ...).
  virtual std::string beta_label() const = 0;
  // One line for people.
  virtual std::string describe() const = 0;
};

using WorkloadPtr = std::shared_ptr<const Workload>;

// `stream` moved in time for lookahead from a decision at time `now`: its
// first job is dropped and every later one arrives at now + (its arrival −
// the first's), so the jobs keep the workload's gaps, models and β.
std::unique_ptr<JobStream> future_stream(std::unique_ptr<JobStream> stream, double now);

// Seeds of independent streams derived from one episode seed (SplitMix-style),
// so the workload and the policy draw from different sequences.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace pacml::sim
