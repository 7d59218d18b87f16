// pacml-plugin-bench: decision latency of the real job_submit_pacml.so.
//
// Loads the plugin with dlopen in a host linked with libslurm (as the unit
// tests do), writes a pacml.conf into a temporary directory, then times
// job_submit() on a job_desc_msg_t exactly as slurmctld passes it. The first
// call per model (graph build, lookahead cache fill) is reported separately;
// the distribution is over the following calls (graph parse cached).
//
//   pacml-plugin-bench [--so PATH] [--model NAME | --graph FILE] [--policy P]
//                      [--beta F] [--profile P] [--iterations N] [--uid U]
//                      [--json]
// --uid submits as that user (and its primary group). A --graph file is read
// here once, as the SPANK plugin reads it in sbatch, and every job carries
// its compact form (plugin/compact_graph.h), as slurmctld receives it.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "plugin/compact_graph.h"
#include "plugin/plugin_host.h"
#include "plugin/user_graph.h"

namespace {

using pacml::plugin::host::JobDesc;
using pacml::plugin::host::JobSubmitPlugin;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * v.size()));
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  std::string so = PACML_JOB_SUBMIT_SO, model = "gnmt", graph, policy = "min_feasible",
              beta = "0.5", profile = "physical";
  int iterations = 2000;
  long uid = -1;  // -1: this process's
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--so")
      so = value();
    else if (a == "--model")
      model = value();
    else if (a == "--graph")
      graph = value();
    else if (a == "--policy")
      policy = value();
    else if (a == "--beta")
      beta = value();
    else if (a == "--profile")
      profile = value();
    else if (a == "--iterations")
      iterations = std::atoi(value().c_str());
    else if (a == "--uid")
      uid = std::atol(value().c_str());
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(
          stderr,
          "usage: pacml-plugin-bench [--so PATH] [--model NAME | --graph FILE] [--policy P] "
          "[--beta F] "
          "[--profile physical|reference] [--iterations N] [--uid U] [--json]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  char dir_template[] = "/tmp/pacml-bench-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) return std::perror("mkdtemp"), 1;
  const std::string conf_dir = dir;
  {
    std::ofstream conf(conf_dir + "/pacml.conf");
    conf << "policy: " << policy << "\nprofile: " << profile
         << "\ntopology: 4x4x2\nnodes: n[1-32]\n"
         << "reservation_ttl: 0\nresolve_job_ids: false\n";
    std::ofstream(conf_dir + "/slurm.conf") << "# unused\n";
  }
  setenv("SLURM_CONF", (conf_dir + "/slurm.conf").c_str(), 1);
  auto t_load = std::chrono::steady_clock::now();
  JobSubmitPlugin plugin;
  const std::string error = plugin.open(so);
  if (!error.empty()) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  plugin.init();
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_load).count();

  std::vector<std::string> env = {graph.empty() ? "_SLURM_SPANK_OPTION_pacml_pacml_model=" + model
                                                : "_SLURM_SPANK_OPTION_pacml_pacml_graph=" + graph,
                                  "_SLURM_SPANK_OPTION_pacml_pacml_beta=" + beta};
  if (!graph.empty())
    for (const auto& [name, value] : pacml::plugin::compact_graph_variables(
             pacml::plugin::compact_user_graph(graph, pacml::plugin::GraphLimits())))
      env.push_back(name + "=" + value);
  std::vector<double> times;
  double first_ms = 0;
  int placed = 0, rejected = 0;
  for (int i = 0; i <= iterations; ++i) {
    JobDesc job("bench");
    if (uid >= 0) {
      job.d.user_id = static_cast<uint32_t>(uid);
      const struct passwd* pw = getpwuid(static_cast<uid_t>(uid));
      job.d.group_id = pw ? pw->pw_gid : static_cast<uint32_t>(uid);
    }
    job.spank(env);
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = plugin.submit(&job.d, &err);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0)
      first_ms = ms;
    else
      times.push_back(ms);
    if (rc == SLURM_SUCCESS && job.d.admin_comment)  // a decision's annotation: placed
      ++placed;
    else
      ++rejected;
    if (i == 0 && rc != SLURM_SUCCESS)
      std::fprintf(stderr, "first decision rejected: %s\n", err.c_str());
  }
  plugin.fini();
  if (!graph.empty()) model = graph;  // named in the report
  std::remove((conf_dir + "/pacml.conf").c_str());
  std::remove((conf_dir + "/slurm.conf").c_str());
  rmdir(dir);
  const double p50 = percentile(times, 50), p99 = percentile(times, 99),
               max = times.empty() ? 0 : *std::max_element(times.begin(), times.end());
  if (json) {
    std::printf(
        "{\"model\": \"%s\", \"policy\": \"%s\", \"beta\": %s, \"iterations\": %d, "
        "\"load_ms\": %.3f, \"first_ms\": %.3f, \"p50_ms\": %.4f, \"p99_ms\": %.4f, "
        "\"max_ms\": %.4f, \"placed\": %d, \"rejected\": %d}\n",
        model.c_str(), policy.c_str(), beta.c_str(), iterations, load_ms, first_ms, p50, p99, max,
        placed, rejected);
  } else {
    std::printf(
        "job_submit_pacml.so decision latency: model %s, policy %s, beta %s, %d calls\n"
        "  dlopen+init %.2f ms, first call %.2f ms (graph build + cache fill)\n"
        "  p50 %.4f ms  p99 %.4f ms  max %.4f ms  (%d placed, %d rejected)\n",
        model.c_str(), policy.c_str(), beta.c_str(), iterations, load_ms, first_ms, p50, p99, max,
        placed, rejected);
  }
  return 0;
}
