// One submission's decision as both pipelines share it: its state
// (Decision) and the steps that do not depend on the world. Engine::decide
// (engine.cpp) reads the request and runs choose_partition and map_servers,
// then hands the Decision to the RAMP pipeline (ramp_decision.h) or the GPU
// one (gpu_decision.h), which extend it with their own state and call the
// remaining steps here.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"
#include "core/util/error.h"
#include "plugin/active_config.h"
#include "plugin/engine.h"
#include "plugin/engine_state.h"
#include "plugin/messages.h"
#include "plugin/request.h"

namespace pacml::plugin {

struct Decision {
  Decision(const SubmitInput& i, const SlurmView& v, ActiveConfig& act)
      : in(i), view(v), a(act), cfg(act.cfg), t0(std::chrono::steady_clock::now()) {}
  const SubmitInput& in;
  const SlurmView& view;
  ActiveConfig& a;
  const PluginConfig& cfg;
  const std::chrono::steady_clock::time_point t0;

  JobRequest req;
  std::string who;                 // "job 'NAME' of uid U", for the log
  std::string partition;           // the managed partition the job runs in
  std::string partition_rewrite;   // set on the job when it named none (or several)
  std::vector<std::string> names;  // server index → Slurm node
  // The job's graph: every RAMP job's, a GPU job's from a graph file.
  JobGraphPtr graph;
  std::string graph_path;
  long steps = 0;
  double seq_s = 0;  // the job alone on one server (RAMP) or GPU, seconds
  // The requirement: what the user asked (req_beta, deadline_s) and what the
  // predicted JCT must meet once the admin's margin is applied (beta, bound_s).
  std::string requirement;  // "beta", "deadline" or "time_limit"
  double req_beta = 1, beta = 1;
  std::optional<double> deadline_s, bound_s;
  // What the world adds to each of this decision's log records: the
  // policy's action and the free servers on a RAMP cluster, the free GPUs on
  // a GPU cluster (whose accepted jobs log their count as `gpus`).
  nlohmann::json world_log = nlohmann::json::object();
  // The choice.
  double jct_s = 0;  // its predicted JCT
  Outcome outcome = Outcome::kPlaced;
  std::string blocked_reason;
  std::uint32_t time_limit = 0;  // 0: the job's own
  std::string time_limit_source = "job";
  std::string notice;

  std::string model_name() const { return graph ? graph->name() : req.model; }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  messages::Need need() const {
    return messages::Need{req_beta, deadline_s, seq_s, cfg.margin,
                          bound_s ? *bound_s : beta * seq_s};
  }
};

SubmitResult rejection(RejectKind kind, const std::string& message);
SubmitResult pass_through(const std::string& why, bool error = false);
// Renames core's option names in `e` to the user-facing `option`.
std::string user_facing(const InputError& e, const std::string& option);

// The steps; a returned result ends the decision.
std::optional<SubmitResult> choose_partition(Decision& d);
std::optional<SubmitResult> map_servers(Decision& d);
std::optional<SubmitResult> read_graph(Decision& d, EngineState& engine);
// Needs d.seq_s (a deadline becomes β against it).
std::optional<SubmitResult> set_requirement(Decision& d);
// Needs d.jct_s.
std::optional<SubmitResult> set_time_limit(Decision& d);

// A job no choice serves: refused with d.blocked_reason, and logged.
SubmitResult reject_blocked(Decision& d, EngineState& engine);
// An accepted (or queued) job's result as both worlds fill it in, with a new
// decision id; the world adds the rewrite and calls set_slurm_deadline.
SubmitResult accepted_result(const Decision& d, EngineState& engine);
void set_slurm_deadline(const Decision& d, SubmitResult& r);
// The decision log fields every outcome shares, and those of an accepted
// job's time limit.
nlohmann::json log_record(const Decision& d, const std::string& id, Outcome outcome);
void log_time_limit(const Decision& d, const SubmitResult& r, nlohmann::json& rec);
// "time limit 1:00:00 from prediction" (or the job's own), for the log line.
std::string time_limit_text(const Decision& d);
// slurmctld's log line of an accepted (or queued) job: who, the model, its
// need, `placement` (the world's words for what it got), the predicted JCT,
// the time limit, the policy and the decision's latency.
std::string accepted_log_message(const Decision& d, const std::string& decision_id,
                                 double latency_ms, const std::string& placement);

}  // namespace pacml::plugin
