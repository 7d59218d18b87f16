#include "plugin/messages.h"

#include <sstream>

#include "core/slurm/slurm_syntax.h"

namespace pacml::plugin::messages {

std::string number(double v, int digits) {
  std::ostringstream out;
  out.precision(digits);
  out << v;
  return out.str();
}

std::string seconds(double s) {
  if (s < 120) return number(s) + " s";
  if (s < 7200) return number(s / 60) + " min";
  if (s < 4 * 86400) return number(s / 3600) + " h";
  return number(s / 86400) + " days";
}

std::string minutes(std::uint32_t m) {
  return std::to_string(m) + " min (" + slurm::format_minutes(m) + ")";
}

std::string need(const Need& n) {
  std::string text =
      n.deadline_s
          ? "finish within " + seconds(*n.deadline_s) + " (β " + number(n.req_beta, 3) +
                " of its sequential " + seconds(n.seq_s) + ")"
          : "reach β " + number(n.req_beta, 3) + " (JCT ≤ " + seconds(n.req_beta * n.seq_s) + ")";
  if (n.margin > 0)
    text += " with margin " + number(n.margin, 3) + " (predicted JCT ≤ " + seconds(n.bound_s) + ")";
  return text;
}

std::string passed_through_notice(const std::string& why) {
  return "pacml: " + why + ", so pacml left this job unchanged: Slurm places it as submitted";
}

std::string no_requirement_log(const std::string& who) {
  return "pacml: " + who +
         " gives no requirement (--pacml-deadline, --pacml-beta or --time); passed through "
         "unchanged";
}

std::string no_requirement_notice() {
  return "pacml: this job gives no requirement (--pacml-deadline, --pacml-beta or --time), so "
         "pacml left it unchanged: Slurm places it as submitted";
}

std::string blocked(const std::string& reason) {
  return "pacml: the job cannot meet its requirement: " + reason +
         ". Relax --pacml-deadline / --pacml-beta / --time, or submit later.";
}

std::string missing_graph() {
  return "pacml: name the job's model with --pacml-model=NAME (a built-in model, see `pacml "
         "graph zoo`) or --pacml-graph=FILE";
}

std::string unmanaged_partition(const std::string& partition, const std::string& managed) {
  return "pacml: partition '" + partition + "' is not managed by pacml (pacml manages " + managed +
         ")";
}

std::string both_beta_and_deadline() {
  return "pacml: give --pacml-deadline or --pacml-beta, not both";
}

std::string limit_too_long(long steps, double predicted_s, double cap_days) {
  return "pacml: " + std::to_string(steps) + " training steps would run for " +
         seconds(predicted_s) + " by pacml's prediction, beyond the " + number(cap_days) +
         " days pacml sets as a time limit; check --pacml-steps / --pacml-iterations";
}

std::string jct_beyond_max_time(double jct_s, const std::string& partition,
                                std::uint32_t max_minutes) {
  return "pacml: the job's predicted run time " + seconds(jct_s) + " exceeds partition " +
         partition + "'s MaxTime of " + minutes(max_minutes) +
         ", so Slurm would end it before it finishes; ask for fewer --pacml-steps or another "
         "partition";
}

std::string limit_capped_notice(std::uint32_t limit, const std::string& partition) {
  return "pacml: time limit capped at partition " + partition + "'s MaxTime, " + minutes(limit);
}

std::string deadline_shortens_notice(std::uint32_t limit, std::uint32_t time_min) {
  const std::string what =
      limit ? "time limit " + minutes(limit) : "the partition's default time limit";
  return "pacml: the " + what +
         " runs past --pacml-deadline: Slurm may shorten it to end by the "
         "deadline, not below " +
         minutes(time_min) +
         " (--time-min), and cancels the job if it "
         "cannot start in time for that";
}

std::string deadline_not_given_notice(std::uint32_t limit) {
  const std::string what =
      limit ? "time limit " + minutes(limit) : "the partition's default time limit";
  return "pacml: the " + what +
         " runs past --pacml-deadline, so the deadline is not given to Slurm (which would "
         "cancel the job at once); state the job's length with --pacml-steps to let Slurm "
         "shorten the limit instead, or give a --time that ends by the deadline";
}

std::string limit_unchecked_notice(const std::string& partition) {
  return "pacml: partition " + partition +
         "'s MaxTime is not known yet (slurmctld has just started): the job keeps its own time "
         "limit";
}

std::string unknown_partition(const std::string& conf, const std::string& partition,
                              const std::string& known) {
  return "pacml: warning: " + conf + ": partition '" + partition +
         "' is not a Slurm partition (Slurm has: " + known +
         "); pacml jobs sent there will be refused by Slurm";
}

std::string unknown_nodes(const std::string& conf, const std::string& nodes, long count) {
  return "pacml: warning: " + conf + ": " + std::to_string(count) +
         " node(s) in 'nodes' are not Slurm nodes: " + nodes +
         "; pacml will never place a job there";
}

std::string shape_mismatch(const std::string& conf, const std::string& shape, long servers,
                           const std::string& mapped_text, long mapped) {
  return "pacml: warning: " + conf + ": topology " + shape + " has " + std::to_string(servers) +
         " servers but " + mapped_text + " nodes; " +
         (mapped < servers ? "servers without a node are never free, so predictions assume a "
                             "cluster that does not exist"
                           : "the nodes beyond the topology are never used");
}

namespace {

// "-N 2-4" as the user gave it (0 = not given; an absent minimum is 1).
std::string n_option(int min_nodes, int max_nodes) {
  const int low = min_nodes > 0 ? min_nodes : 1;
  return "-N " + std::to_string(low) +
         (max_nodes > 0 && max_nodes != low ? "-" + std::to_string(max_nodes) : "");
}

}  // namespace

std::string ramp_refuses_node_list() {
  return "pacml: on this RAMP cluster pacml places the job on the exact nodes of a RAMP block, so "
         "it cannot also take -w/--nodelist; drop -w (--exclude keeps nodes out and is honoured)";
}

std::string ramp_count_outside(int count, int degree, int min_nodes, int max_nodes) {
  return "pacml: the job's RAMP placement (degree " + std::to_string(degree) + ") takes " +
         std::to_string(count) + " nodes, outside your " + n_option(min_nodes, max_nodes) +
         "; drop or widen -N, or change the requirement";
}

std::string no_nodes(const std::string& partition) {
  return "pacml: partition " + partition + " has no nodes pacml knows of";
}

std::string within_user_nodes(int min_nodes, int max_nodes, int required) {
  std::string text;
  if (min_nodes > 0 || max_nodes > 0) text += " within " + n_option(min_nodes, max_nodes);
  if (required > 0)
    text += std::string(text.empty() ? " with" : " and") + " the " + std::to_string(required) +
            " node(s) of -w";
  return text;
}

std::string gpus_replaced_notice(int requested, int chosen, const std::string& policy) {
  return "pacml: the job asked for " + std::to_string(requested) + " GPUs; policy " + policy +
         " gives it " + std::to_string(chosen) + " (policy `requested` would keep yours)";
}

std::string gpu_request(const RequestShape& s) {
  std::string text = std::to_string(s.gpus) + " GPU" + (s.gpus == 1 ? "" : "s") + " on " +
                     std::to_string(s.nodes) + " node" + (s.nodes == 1 ? "" : "s");
  if (s.whole_nodes)
    return text + " (" + std::to_string(s.gpus_per_node) + " per node, whole nodes)";
  return text + (s.nodes == 1 ? " (sharing it)" : " (sharing the last)");
}

}  // namespace pacml::plugin::messages
