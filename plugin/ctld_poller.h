// job_submit/pacml's background thread inside slurmctld: what job_submit()
// needs but cannot ask for (an RPC from job_submit() deadlocks slurmctld,
// doc/SLURM.md §7), read through Slurm's public API outside slurmctld's
// locks and kept in `Polled` for job_submit() to read:
//
//  * the nodes and MaxTime of every partition (every 5 s; at once, then
//    every 50 ms for up to 5 s until the first table has loaded);
//  * whether slurmctld's nodes have registered since it started: from Slurm
//    23.11 on every `scontrol reconfigure` starts a new slurmctld, whose
//    nodes are UNKNOWN for a second or two, and pacml must not read that as
//    "nothing is free";
//  * on a GPU cluster, the GPUs of every node (GRES configured and in use);
//  * the Slurm job ids of recent decisions (the decision log) and the
//    reservations whose job has started.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plugin/engine.h"

namespace pacml::plugin {

// What the background thread learned through the public API.
struct Polled {
  std::mutex mutex;
  bool loaded = false;  // the partition table below has been read once
  std::string default_partition;
  std::map<std::string, std::vector<int>> partition_index;  // node indices, Slurm order
  std::map<std::string, std::uint32_t> max_minutes;         // MaxTime of limited partitions
  // GPUs of each node from its GRES: (configured, allocated), a second old
  // at most (slurmctld's GRES state is not among the globals job_submit may read).
  std::map<std::string, std::pair<int, int>> node_gpus;
  // False until no node is UNKNOWN (not registered since slurmctld started),
  // or kRegistrationWindowS after the thread started: a node still UNKNOWN
  // then is one Slurm will not use either, and pacml counts it unavailable.
  bool nodes_registered = false;
};

// How long after slurmctld starts pacml waits for its nodes to register
// before it decides with those that have (slurmd re-registers within a
// second or two of a reconfigure; a node that never answers stays UNKNOWN
// until SlurmdTimeout marks it DOWN).
inline constexpr double kRegistrationWindowS = 60;

// How long after it starts the thread asks every 50 ms (not every 0.5 s)
// while the partitions or the nodes are not known yet.
inline constexpr double kFastPollS = 5;

// The thread: started by job_submit/pacml's init(), stopped by fini().
class CtldPoller {
 public:
  CtldPoller(Engine& engine, Polled& polled) : engine_(engine), polled_(polled) {}
  ~CtldPoller() { stop(); }
  CtldPoller(const CtldPoller&) = delete;
  CtldPoller& operator=(const CtldPoller&) = delete;

  void start();
  void stop();

 private:
  void run();
  double poll_interval(bool first_pass);
  bool wait(double seconds);  // false once stop() was called
  void poll_partitions(double now);
  void poll_node_registration(double now);
  void poll_node_gpus();
  void check_config_against_slurm();
  void match_decisions(double now);
  bool partitions_loaded();

  Engine& engine_;
  Polled& polled_;
  std::thread thread_;
  std::mutex stop_mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  double started_ = 0;
  double next_partitions_ = 0;
  double next_gpus_ = 0;
};

}  // namespace pacml::plugin
