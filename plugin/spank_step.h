// What the SPANK plugin decides from what a process already has, before it
// asks slurmctld anything (plugin/spank_pacml.cpp).
//
// slurmstepd gives a step's tasks the job's GPU plan, which only slurmctld
// knows (the job's AdminComment), at the cost of one slurm_load_job RPC. A
// cluster runs many steps of jobs pacml never saw, so that RPC is made only
// for the steps of pacml jobs, known from the environment the step carries:
// the SPANK plugin marks every job it sends with pacml options (kJobMarker,
// set in sbatch's, salloc's or srun's own environment, which the job's
// tasks and the sruns started from them inherit).
#pragma once

#include <functional>
#include <string>

#include "plugin/graph_text.h"

namespace pacml::plugin {

// Set to "1" in the submitting process of a job with --pacml-* options.
constexpr const char* kJobMarker = "PACML_JOB";
// Set by job_submit/pacml in a batch script's environment with the plan.
constexpr const char* kDecisionVar = "PACML_DECISION";

// Whether a step must ask slurmctld for its job's plan: not when it has
// the plan already (a batch script's, inherited by its sruns), and not for
// a job the plugin never marked. `has_env(name)`: the step's environment.
bool step_needs_plan_lookup(const std::function<bool(const char*)>& has_env);

// Plugstack arguments ("max_graph_bytes=N", "max_graph_ops=N",
// "max_graph_edges=N"; the site's pacml.conf limits, so that sbatch refuses
// what slurmctld would) into `limits`; throws InputError naming a bad one.
void parse_spank_args(int argc, char** argv, GraphLimits& limits);

}  // namespace pacml::plugin
