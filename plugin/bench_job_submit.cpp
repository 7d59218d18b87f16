// pacml-plugin-bench: decision latency of the real job_submit_pacml.so.
//
// Loads the plugin with dlopen in a host linked with libslurm (as the unit
// tests do), writes a pacml.conf into a temporary directory, then times
// job_submit() on a job_desc_msg_t exactly as slurmctld passes it. The first
// call per model (graph build, lookahead cache fill) is reported separately;
// the distribution is over the following calls (graph parse cached).
//
//   pacml-plugin-bench [--so PATH] [--model NAME | --graph FILE] [--policy P]
//                      [--beta F] [--world W] [--iterations N] [--uid U]
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

struct BenchOptions {
  std::string so = PACML_JOB_SUBMIT_SO, model = "gnmt", graph, policy = "min_feasible",
              beta = "0.5", world = "gpu";
  int iterations = 2000;
  long uid = -1;  // -1: this process's
  bool json = false;
};

// Reads the command line into `o`. Returns -1 to go on, else the exit status
// (0 for --help).
int parse_options(int argc, char** argv, BenchOptions& o) {
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
      o.so = value();
    else if (a == "--model")
      o.model = value();
    else if (a == "--graph")
      o.graph = value();
    else if (a == "--policy")
      o.policy = value();
    else if (a == "--beta")
      o.beta = value();
    else if (a == "--world")
      o.world = value();
    else if (a == "--iterations")
      o.iterations = std::atoi(value().c_str());
    else if (a == "--uid")
      o.uid = std::atol(value().c_str());
    else if (a == "--json")
      o.json = true;
    else {
      std::fprintf(
          stderr,
          "usage: pacml-plugin-bench [--so PATH] [--model NAME | --graph FILE] [--policy P] "
          "[--beta F] "
          "[--world gpu|paper] [--iterations N] [--uid U] [--json]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  return -1;
}

// The pacml.conf the plugin reads (and the slurm.conf SLURM_CONF must name).
void write_config_files(const std::string& conf_dir, const BenchOptions& o) {
  std::ofstream conf(conf_dir + "/pacml.conf");
  conf << "policy: " << o.policy << "\nworld: " << o.world << "\ntopology: 4x4x2\nnodes: n[1-32]\n"
       << "reservation_ttl: 0\nresolve_job_ids: false\n";
  std::ofstream(conf_dir + "/slurm.conf") << "# unused\n";
}

// The SPANK option variables every job carries: the model (or the graph
// file's name and compact form) and β.
std::vector<std::string> spank_environment(const BenchOptions& o) {
  std::vector<std::string> env = {o.graph.empty()
                                      ? "_SLURM_SPANK_OPTION_pacml_pacml_model=" + o.model
                                      : "_SLURM_SPANK_OPTION_pacml_pacml_graph=" + o.graph,
                                  "_SLURM_SPANK_OPTION_pacml_pacml_beta=" + o.beta};
  if (!o.graph.empty())
    for (const auto& [name, value] : pacml::plugin::compact_graph_variables(
             pacml::plugin::compact_user_graph(o.graph, pacml::plugin::GraphLimits())))
      env.push_back(name + "=" + value);
  return env;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Latencies {
  double load_ms = 0, first_ms = 0;
  std::vector<double> times;  // the calls after the first
  int placed = 0, rejected = 0;
};

// Submits 1 + iterations jobs and times each job_submit() call.
void time_submissions(const JobSubmitPlugin& plugin, const BenchOptions& o, Latencies& l) {
  const std::vector<std::string> env = spank_environment(o);
  for (int i = 0; i <= o.iterations; ++i) {
    JobDesc job("bench");
    if (o.uid >= 0) {
      job.d.user_id = static_cast<uint32_t>(o.uid);
      const struct passwd* pw = getpwuid(static_cast<uid_t>(o.uid));
      job.d.group_id = pw ? pw->pw_gid : static_cast<uint32_t>(o.uid);
    }
    job.spank(env);
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = plugin.submit(&job.d, &err);
    const double ms = milliseconds_since(t0);
    if (i == 0)
      l.first_ms = ms;
    else
      l.times.push_back(ms);
    if (rc == SLURM_SUCCESS && job.d.admin_comment)  // a decision's annotation: placed
      ++l.placed;
    else
      ++l.rejected;
    if (i == 0 && rc != SLURM_SUCCESS)
      std::fprintf(stderr, "first decision rejected: %s\n", err.c_str());
  }
}

void print_report(const BenchOptions& o, const Latencies& l) {
  const double p50 = percentile(l.times, 50), p99 = percentile(l.times, 99),
               max = l.times.empty() ? 0 : *std::max_element(l.times.begin(), l.times.end());
  const std::string model = o.graph.empty() ? o.model : o.graph;  // named in the report
  if (o.json) {
    std::printf(
        "{\"model\": \"%s\", \"policy\": \"%s\", \"beta\": %s, \"iterations\": %d, "
        "\"load_ms\": %.3f, \"first_ms\": %.3f, \"p50_ms\": %.4f, \"p99_ms\": %.4f, "
        "\"max_ms\": %.4f, \"placed\": %d, \"rejected\": %d}\n",
        model.c_str(), o.policy.c_str(), o.beta.c_str(), o.iterations, l.load_ms, l.first_ms, p50,
        p99, max, l.placed, l.rejected);
  } else {
    std::printf(
        "job_submit_pacml.so decision latency: model %s, policy %s, beta %s, %d calls\n"
        "  dlopen+init %.2f ms, first call %.2f ms (graph build + cache fill)\n"
        "  p50 %.4f ms  p99 %.4f ms  max %.4f ms  (%d placed, %d rejected)\n",
        model.c_str(), o.policy.c_str(), o.beta.c_str(), o.iterations, l.load_ms, l.first_ms, p50,
        p99, max, l.placed, l.rejected);
  }
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions options;
  if (const int status = parse_options(argc, argv, options); status >= 0) return status;
  char dir_template[] = "/tmp/pacml-bench-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) return std::perror("mkdtemp"), 1;
  const std::string conf_dir = dir;
  write_config_files(conf_dir, options);
  setenv("SLURM_CONF", (conf_dir + "/slurm.conf").c_str(), 1);
  Latencies latencies;
  const auto t_load = std::chrono::steady_clock::now();
  JobSubmitPlugin plugin;
  const std::string error = plugin.open(options.so);
  if (!error.empty()) return std::fprintf(stderr, "%s\n", error.c_str()), 1;
  plugin.init();
  latencies.load_ms = milliseconds_since(t_load);
  time_submissions(plugin, options, latencies);
  plugin.fini();
  std::remove((conf_dir + "/pacml.conf").c_str());
  std::remove((conf_dir + "/slurm.conf").c_str());
  rmdir(dir);
  print_report(options, latencies);
  return 0;
}
