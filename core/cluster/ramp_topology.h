// The RAMP optical cluster (doc/MODEL.md §2): C communication groups × R racks × S
// servers, one GPU worker per server, a full mesh of single-hop channels.
#pragma once

#include <string>

namespace pacml {

struct RampParams {
  int groups = 4;                      // C
  int racks = 4;                       // R (per group); R ≤ C
  int servers_per_rack = 2;            // S
  double node_bandwidth = 1.6e12;      // bytes/s out of one server, split over C channels
  double propagation_latency = 50e-9;  // seconds, per transfer
  double io_latency = 100e-9;          // seconds, worker I/O, paid twice per transfer
  double worker_memory = 80e9;         // bytes per GPU (A100 80 GB)
};

// A server's coordinates; index = (c·R + r)·S + s (c slowest).
struct ServerCoord {
  int c = 0, r = 0, s = 0;
};

class RampTopology {
 public:
  // Validates the parameters; throws InputError(where, ...) naming the bad one.
  explicit RampTopology(const RampParams& params, const std::string& where = "topology");

  // Parses "CxRxS" (e.g. "4x4x2") with the other parameters at their defaults.
  static RampTopology parse(const std::string& shape, const std::string& where = "--topology");

  const RampParams& params() const { return p_; }
  int groups() const { return p_.groups; }
  int racks() const { return p_.racks; }
  int servers_per_rack() const { return p_.servers_per_rack; }
  int num_servers() const { return p_.groups * p_.racks * p_.servers_per_rack; }
  // Bandwidth of one channel: node bandwidth / C.
  double channel_bandwidth() const { return p_.node_bandwidth / p_.groups; }

  int index(int c, int r, int s) const { return (c * p_.racks + r) * p_.servers_per_rack + s; }
  ServerCoord coord(int server) const;
  bool contains(int c, int r, int s) const {
    return c >= 0 && c < p_.groups && r >= 0 && r < p_.racks && s >= 0 && s < p_.servers_per_rack;
  }
  std::string shape() const;  // "4x4x2"

 private:
  RampParams p_;
};

}  // namespace pacml
