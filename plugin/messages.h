// The wording of what the engine tells users (sbatch's error or notice) and
// admins (slurmctld's log), kept apart from the decisions themselves
// (engine.cpp, decision.cpp, ramp_decision.cpp, gpu_decision.cpp) so that one
// can change without the other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "plugin/gpu_plan.h"

namespace pacml::plugin::messages {

std::string number(double v, int digits = 4);
// "45 s", "12.5 min", "3.2 h".
std::string seconds(double s);
// Slurm's time-limit text and minutes: "90 min (01:30:00)".
std::string minutes(std::uint32_t m);

// What the job must achieve, for the log and for messages: "finish within
// 2 h (β 0.5 of its sequential 4 h)" or "reach β 0.45 (JCT ≤ 1.8 s)", with
// the margin when there is one.
struct Need {
  double req_beta = 1;               // the user's β (or deadline / JCT_seq)
  std::optional<double> deadline_s;  // the deadline or --time, if that is the requirement
  double seq_s = 0;                  // JCT_seq in seconds
  double margin = 0;
  double bound_s = 0;  // what the predicted JCT must meet after the margin
};
std::string need(const Need& n);

// What the user of a pacml job that passes through unchanged is told.
std::string passed_through_notice(const std::string& why);
std::string no_requirement_log(const std::string& who);
std::string no_requirement_notice();
std::string blocked(const std::string& reason);
std::string missing_graph();
std::string unmanaged_partition(const std::string& partition, const std::string& managed);
std::string both_beta_and_deadline();

// Users' node options on a RAMP cluster, where pacml names the exact nodes.
std::string ramp_refuses_node_list();
std::string ramp_count_outside(int count, int degree, int min_nodes, int max_nodes);

// A GPU cluster (plugin/README.md, "GPU cluster").
std::string no_nodes(const std::string& partition);
// " within -N 2-4 and the 3 node(s) of -w" (the user's limits, for a blocked
// job; 0 = not given).
std::string within_user_nodes(int min_nodes, int max_nodes, int required);
// "6 GPUs on 2 nodes (4 per node, sharing the last)".
std::string gpu_request(const RequestShape& shape);
// The user's own --gpus / --gres=gpu:N, replaced by the policy's count.
std::string gpus_replaced_notice(int requested, int chosen, const std::string& policy);

// Time limits (plugin/README.md, "Time limits").
std::string limit_too_long(long steps, double predicted_s, double cap_days);
std::string jct_beyond_max_time(double jct_s, const std::string& partition,
                                std::uint32_t max_minutes);
std::string limit_capped_notice(std::uint32_t limit, const std::string& partition);
// A time limit (0: Slurm's default) that runs past --pacml-deadline.
std::string deadline_shortens_notice(std::uint32_t limit, std::uint32_t time_min);
// A deadline not given to Slurm: the limit in force runs past it, and the
// job states no length to set a --time-min from.
std::string deadline_not_given_notice(std::uint32_t limit);
// A length whose limit pacml cannot check against MaxTime yet (slurmctld
// has just started): the job keeps its own.
std::string limit_unchecked_notice(const std::string& partition);

// Warnings about pacml.conf (`conf`) against Slurm's partitions and nodes.
std::string unknown_partition(const std::string& conf, const std::string& partition,
                              const std::string& known);
std::string unknown_nodes(const std::string& conf, const std::string& nodes, long count);
std::string shape_mismatch(const std::string& conf, const std::string& shape, long servers,
                           const std::string& mapped_text, long mapped);

}  // namespace pacml::plugin::messages
