// spank_pacml — the users' options for pacml:
//
//   sbatch|srun|salloc --pacml-graph=FILE | --pacml-model=NAME
//                      [--pacml-steps=N | --pacml-iterations=N]
//                      [--pacml-deadline=TIME | --pacml-beta=F]
//
// Slurm hands the options to slurmctld in the job's SPANK environment
// (_SLURM_SPANK_OPTION_pacml_pacml_*), where job_submit/pacml reads them. This
// plugin checks their syntax early (a typo fails at the command line, not
// in slurmctld's log), and reads the user's --pacml-graph file here, in
// sbatch/salloc/srun, as the user: it parses it with slurmctld's parsers and
// limits and sends the graph in a bounded compact form
// (plugin/compact_graph.h) through the job's control environment, so that
// slurmctld never opens a user's path (plugin/README.md, "Security"). The
// limits are the plugstack.conf arguments max_graph_bytes=, max_graph_ops=,
// max_graph_edges= (pacml.conf's defaults without them). It is loaded by
// sbatch/srun/salloc (allocator, local) and slurmstepd (remote): list it as
// `optional` in plugstack.conf.
//
// On a GPU cluster it also gives every step the job's plan (PACML_GPUS, …;
// plugin/gpu_plan.h): job_submit/pacml puts it in a batch script's
// environment itself, but an srun or salloc job's environment is the user's,
// so in slurmstepd (remote context) this plugin reads the plan job_submit
// stored in the job's AdminComment and sets it for the step's tasks; in
// salloc's interactive step (LaunchParameters=use_interactive_step) also the
// task count its sruns start.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/spank.h>
}

#include "core/slurm/log_text.h"
#include "core/util/error.h"
#include "plugin/compact_graph.h"
#include "plugin/gpu_plan.h"
#include "plugin/spank_step.h"
#include "plugin/user_graph.h"

extern "C" {
extern const char plugin_name[];
extern const char plugin_type[];
extern const unsigned int plugin_version;
extern const unsigned int spank_plugin_version;
}
SPANK_PLUGIN(pacml, 1)

namespace {

std::string g_graph;
bool g_pacml = false;  // a --pacml-* option was given
pacml::plugin::GraphLimits g_limits;

// Option values are the user's text and reach slurmd's log too (slurmstepd
// parses them again): escaped like every pacml log line.
int fail(const char* option, const std::string& message) {
  slurm_error("--%s: %s", option, pacml::slurm::escape_for_log(message).c_str());
  return -1;
}

// Runs a SPANK entry point's body: no exception may cross into Slurm (C),
// so any becomes a log line and `on_error`.
template <class Body>
int guarded(const char* entry, int on_error, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    slurm_error("pacml: %s: %s", entry, pacml::slurm::escape_for_log(e.what()).c_str());
  } catch (...) {
    slurm_error("pacml: %s failed", entry);
  }
  return on_error;
}

int opt_graph(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-graph", -1, [&] {
    if (!arg || !*arg) return fail("pacml-graph", "give a graph file");
    g_graph = arg;
    return 0;
  });
}

int opt_model(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-model", -1, [&] {
    if (!arg || !*arg) return fail("pacml-model", "give a model name (see `pacml graph zoo`)");
    return 0;
  });
}

int check_count(const char* option, const char* arg) {
  char* end = nullptr;
  errno = 0;
  const long n = arg ? std::strtol(arg, &end, 10) : 0;
  if (!arg || end == arg || *end || errno || n < 1 || n > 1000000000)
    return fail(option, std::string("expected a positive integer, got '") + (arg ? arg : "") + "'");
  return 0;
}

int opt_steps(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-steps", -1, [&] { return check_count("pacml-steps", arg); });
}
int opt_iterations(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-iterations", -1, [&] { return check_count("pacml-iterations", arg); });
}

int opt_deadline(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-deadline", -1, [&] {
    if (!arg || !*arg) return fail("pacml-deadline", "give a deadline (Slurm time syntax)");
    if (arg[0] == '-')
      return fail("pacml-deadline", std::string("must not be negative, got '") + arg + "'");
    return 0;  // the full syntax is checked in slurmctld against the submit time
  });
}

int opt_beta(int, const char* arg, int) {
  g_pacml = true;
  return guarded("--pacml-beta", -1, [&] {
    char* end = nullptr;
    const double b = arg ? std::strtod(arg, &end) : NAN;
    if (!arg || end == arg || *end || !(b > 0 && b <= 1))
      return fail("pacml-beta",
                  std::string("expected a fraction in (0, 1], got '") + (arg ? arg : "") + "'");
    return 0;
  });
}

struct spank_option g_options[] = {
    {const_cast<char*>("pacml-graph"), const_cast<char*>("FILE"),
     const_cast<char*>("pacml: the job's model graph (PipeDream graph.txt or pacml YAML)"), 1, 0,
     opt_graph},
    {const_cast<char*>("pacml-model"), const_cast<char*>("NAME"),
     const_cast<char*>("pacml: a built-in model instead of a graph file (pacml graph zoo)"), 1, 0,
     opt_model},
    {const_cast<char*>("pacml-steps"), const_cast<char*>("N"),
     const_cast<char*>("pacml: training steps the job runs (sets its time limit)"), 1, 0,
     opt_steps},
    {const_cast<char*>("pacml-iterations"), const_cast<char*>("N"),
     const_cast<char*>("pacml: the same as --pacml-steps"), 1, 0, opt_iterations},
    {const_cast<char*>("pacml-deadline"), const_cast<char*>("TIME"),
     const_cast<char*>(
         "pacml: finish by TIME (duration like --time, or YYYY-MM-DDTHH:MM, now+1hour)"),
     1, 0, opt_deadline},
    {const_cast<char*>("pacml-beta"), const_cast<char*>("F"),
     const_cast<char*>("pacml: finish within F x the sequential time, 0 < F <= 1"), 1, 0, opt_beta},
    SPANK_OPTIONS_TABLE_END};

// The plan job_submit/pacml stored for the job; nullopt if it has none.
std::optional<pacml::plugin::GpuPlan> job_plan(uint32_t job_id) {
  job_info_msg_t* jobs = nullptr;
  if (slurm_load_job(&jobs, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !jobs) return std::nullopt;
  std::optional<pacml::plugin::GpuPlan> plan;
  for (uint32_t i = 0; i < jobs->record_count && !plan; ++i)
    for (const char* text : {jobs->job_array[i].admin_comment, jobs->job_array[i].comment})
      if (text && !plan) plan = pacml::plugin::parse_plan(text);
  slurm_free_job_info_msg(jobs);
  return plan;
}

// slurmstepd, before the step's tasks start: the plan into their environment,
// unless it is there already (a batch script's, inherited by its sruns).
// Called from slurm_spank_init, where slurmstepd still runs as root and holds
// no lock: from Slurm 23.11 on, slurm_spank_user_init runs with privileges
// dropped under slurmstepd's auth_setuid_lock(), and the RPC below would ask
// for that lock again (slurmstepd dies: "auth_g_create:
// pthread_rwlock_rdlock(): Resource deadlock avoided"). Once per step and
// node, as before, not once per task as slurm_spank_task_init would be.
int give_step_its_plan(spank_t sp) {
  const auto has_env = [sp](const char* name) {
    char value[64];
    const spank_err_t rc = spank_getenv(sp, name, value, sizeof value);
    return rc == ESPANK_SUCCESS || rc == ESPANK_NOSPACE;
  };
  // No RPC for steps of jobs pacml never saw (every step on the cluster
  // passes here), nor for those that have their plan already.
  if (!pacml::plugin::step_needs_plan_lookup(has_env)) return 0;
  uint32_t job_id = 0;
  if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS || job_id == 0) return 0;
  slurm_verbose("pacml: job %u: loading the job's plan from slurmctld", job_id);
  const std::optional<pacml::plugin::GpuPlan> plan = job_plan(job_id);
  if (!plan) return 0;  // not a pacml job on a GPU cluster
  for (const auto& [name, value] : pacml::plugin::plan_environment(*plan))
    spank_setenv(sp, name.c_str(), value.c_str(), 1);
  // salloc's shell under LaunchParameters=use_interactive_step is this step:
  // srun reads its task count from SLURM_NTASKS when it has no -n, as in a
  // batch script, but salloc had no k to put there (pacml decided after
  // salloc sent its request), so an srun in the shell would start one rank
  // per node. Only the interactive step: another step's SLURM_NTASKS is its
  // own task count.
  uint32_t step_id = 0;
  if (spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS &&
      step_id == SLURM_INTERACTIVE_STEP)
    for (const auto& [name, value] : pacml::plugin::interactive_step_environment(*plan))
      spank_setenv(sp, name.c_str(), value.c_str(), 1);
  return 0;
}

}  // namespace

extern "C" int slurm_spank_init(spank_t sp, int ac, char** av) {
  const spank_context_t c = spank_context();
  const int rc = guarded("slurm_spank_init", -1, [&] {
    if (c != S_CTX_ALLOCATOR && c != S_CTX_LOCAL && c != S_CTX_REMOTE) return 0;
    try {
      pacml::plugin::parse_spank_args(ac, av, g_limits);
    } catch (const pacml::InputError& e) {  // keep the defaults; the admin is told
      slurm_error("pacml: %s", pacml::slurm::escape_for_log(e.what()).c_str());
    }
    for (struct spank_option* o = g_options; o->name; ++o)
      if (spank_option_register(sp, o) != ESPANK_SUCCESS) return -1;
    return 0;
  });
  if (rc != 0 || c != S_CTX_REMOTE) return rc;
  // A plan that cannot be loaded leaves the step as it is (pacml is optional).
  return guarded("slurm_spank_init", 0, [&] { return give_step_its_plan(sp); });
}

namespace {

// The user's graph file, read here as the user, to slurmctld in its
// compact form; or, if it cannot be used, the reason, which slurmctld
// refuses the job with (an `optional` plugin's failure does not stop
// sbatch, so the message must reach slurmctld too).
int send_graph(spank_t sp) {
  char cwd[PATH_MAX];
  const std::string path =
      pacml::plugin::resolve_user_graph(g_graph, getcwd(cwd, sizeof cwd) ? cwd : "");
  // A bare name that is not here stays a name: the site's graph_dirs serve it.
  spank_job_control_setenv(sp, "PACML_GRAPH", path.empty() ? g_graph.c_str() : path.c_str(), 1);
  if (path.empty()) return 0;
  std::string form;
  try {
    form = pacml::plugin::compact_user_graph(path, g_limits);
  } catch (const pacml::InputError& e) {
    const std::string message = pacml::slurm::escape_for_log(e.what());
    slurm_error("pacml: %s", message.c_str());
    spank_job_control_setenv(sp, pacml::plugin::kGraphErrorVar,
                             message.substr(0, pacml::plugin::kMaxGraphErrorBytes).c_str(), 1);
    return -1;
  }
  for (const auto& [name, value] : pacml::plugin::compact_graph_variables(form))
    if (spank_job_control_setenv(sp, name.c_str(), value.c_str(), 1) != ESPANK_SUCCESS) {
      slurm_error("pacml: %s: could not pass the graph to slurmctld",
                  pacml::slurm::escape_for_log(path).c_str());
      return -1;
    }
  return 0;
}

int init_post_opt(spank_t sp) {
  const spank_context_t c = spank_context();
  if ((c != S_CTX_ALLOCATOR && c != S_CTX_LOCAL) || !g_pacml) return 0;
  // Marks the job for its steps (their environment comes from this
  // process's): slurmstepd asks slurmctld for a plan only for marked jobs.
  setenv(pacml::plugin::kJobMarker, "1", 1);
  return g_graph.empty() ? 0 : send_graph(sp);
}

}  // namespace

// A graph file that cannot be used returns -1 (its reason also goes to
// slurmctld, which refuses the job); an internal failure leaves the job as
// it is (pacml is optional).
extern "C" int slurm_spank_init_post_opt(spank_t sp, int, char**) {
  return guarded("slurm_spank_init_post_opt", 0, [&] { return init_post_opt(sp); });
}
