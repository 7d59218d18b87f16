#include "core/config/plugin_config_keys.h"

#include <cmath>
#include <utility>
#include <vector>

namespace pacml {

namespace {

using T = SettingType;

// What pacml decides with and for: the policy, the cluster and its nodes.
std::vector<SettingKey> decision_keys() {
  return {SettingKey("policy", T::kText,
                     "world gpu: requested, min_feasible, para_max, fixed:K, random, "
                     "capped:X or pacml:default (the learned GPU policy); paper: the "
                     "paper's baselines or pacml:WEIGHTS. SchedulerParameters: pacml_policy=")
              .defaults_to("min_feasible"),
          SettingKey("cluster", T::kText,
                     "a GPU cluster (preset or file) pacml decides k GPUs on with the physical "
                     "model (plugin/README.md, GPU cluster); unset: the paper's cluster of "
                     "topology")
              .only_with("world: gpu"),
          SettingKey("throughput_table", T::kText,
                     "absolute directory of measured iterations/s, one MODEL.csv each "
                     "(ElasticFlow's format); where it has the (model, batch, GPUs) it overrides "
                     "the physical model's step time")
              .only_with("world: gpu"),
          SettingKey(
              "correction", T::kText,
              "absolute path of the site's correction of predicted step times (`pacml "
              "calibrate --history`, doc/SLURM.md section 11); the decision and the time limit use "
              "the corrected step time, re-read when the file changes")
              .only_with("world: gpu"),
          SettingKey("on_block", T::kChoice,
                     "a job no GPU count serves now: refused, or left to wait in Slurm's queue. "
                     "SchedulerParameters: pacml_on_block=")
              .one_of({"reject", "queue"})
              .defaults_to("reject"),
          SettingKey("margin", T::kNumber,
                     "a choice meets the requirement only if JCT x (1 + margin) does; below 10. "
                     "SchedulerParameters: pacml_margin=")
              .range(0, 10)
              .defaults_to("0"),
          SettingKey("world", T::kChoice,
                     "gpu: k GPUs chosen with the physical model (doc/PHYSICAL.md); paper: "
                     "degrees on RAMP blocks by the paper's simulator, in its units "
                     "(doc/ARCHITECTURE.md section 2)")
              .one_of({"gpu", "paper"})
              .defaults_to("gpu"),
          SettingKey("profile", T::kChoice,
                     "the name `world` had before: physical = world: gpu, reference = world: "
                     "paper; still read, so older files load")
              .one_of({"physical", "reference"}),
          SettingKey("topology", T::kText,
                     "the RAMP cluster without `cluster`: CxRxS or a mapping "
                     "(`pacml config keys topology`)")
              .defaults_to("4x4x2"),
          SettingKey("nodes", T::kList,
                     "RAMP cluster: the Slurm node of each server (c*R + r)*S + s: a hostlist, a "
                     "list, or {name: [c, r, s]}")
              .defaults_to("the partition's nodes"),
          SettingKey("partitions", T::kList,
                     "partitions pacml decides for; a job naming none goes to the first")
              .defaults_to("the default one")};
}

// What one submission may cost, the log, the time limits and the rest.
std::vector<SettingKey> submission_keys() {
  return {SettingKey("graph_dirs", T::kList, "absolute directories that serve bare graph names"),
          SettingKey("user_graph_files", T::kBoolean,
                     "users may name their own graph files (read by the SPANK plugin as the user)")
              .defaults_to("true"),
          SettingKey("max_graph_bytes", T::kInteger,
                     "size limit of a graph file; bounds one submission's parse (Cost bounds)")
              .range(1024, 16777216, "bytes")
              .defaults_to("524288"),
          SettingKey("max_graph_ops", T::kInteger,
                     "limit on a graph's layers; bounds one submission's decision (Cost bounds)")
              .range(1, 100000, "layers")
              .defaults_to("2000"),
          SettingKey("max_graph_edges", T::kInteger,
                     "limit on a graph's edges; bounds one submission's decision (Cost bounds)")
              .range(1, 1000000, "edges")
              .defaults_to("4000"),
          SettingKey("decision_log", T::kText, "absolute path of the JSON-lines decision log"),
          SettingKey("time_limit_factor", T::kNumber,
                     "a job that states its length gets JCT x factor + extra, never below --time")
              .range(1, 1000)
              .defaults_to("1.2"),
          SettingKey("time_limit_extra", T::kText, "a Slurm duration added to that time limit")
              .defaults_to("1:00"),
          SettingKey("default_steps", T::kInteger,
                     "steps pacml predicts with when a job gives no length")
              .range(1, 1e9)
              .defaults_to("50"),
          SettingKey("seed", T::kInteger, "seed of the random policy")
              .range(0, 4611686018427387904.0)
              .defaults_to("1"),
          SettingKey("annotate", T::kChoice, "where the decision annotation goes")
              .one_of({"admin_comment", "comment"})
              .defaults_to("admin_comment"),
          SettingKey("reservation_ttl", T::kNumber,
                     "the longest a decided job's resources stay reserved before it starts")
              .range(0, INFINITY, "seconds")
              .defaults_to("30"),
          SettingKey("resolve_job_ids", T::kBoolean,
                     "wait (up to 60 s) for the Slurm job id before writing a log line")
              .defaults_to("true")};
}

}  // namespace

const SettingsTable& plugin_config_settings() {
  static const SettingsTable table("pacml.conf key", [] {
    std::vector<SettingKey> keys = decision_keys();
    for (SettingKey& k : submission_keys()) keys.push_back(std::move(k));
    return keys;
  }());
  return table;
}

}  // namespace pacml
