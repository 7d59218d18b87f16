#include "plugin/gpu_plan.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/util/text.h"

namespace pacml::plugin {

namespace {

// A whole non-negative integer, or -1.
long whole(const std::string& text) {
  if (text.empty() || text.size() > 12) return -1;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  return (errno || *end || v < 0) ? -1 : v;
}

}  // namespace

int gres_gpu_count(const std::string& gres) {
  long total = 0;
  // Entries are separated by commas, but "(S:0-1)" and "(IDX:0,2)" hold
  // commas too: drop parenthesised parts first.
  std::string flat;
  int depth = 0;
  for (char c : gres) {
    if (c == '(') ++depth;
    if (depth == 0) flat += c;
    if (c == ')' && depth > 0) --depth;
  }
  // An empty entry or count (",," or "gpu:") is no GPUs, as whole("") says.
  for (const std::string& entry : split_fields(flat, ',')) {
    const std::vector<std::string> parts = split_fields(entry, ':');  // gpu[:type]:count
    if (parts.size() < 2 || parts.front() != "gpu") continue;
    const long n = whole(parts.back());
    if (n > 0) total += n;
  }
  return total > (1 << 20) ? 0 : static_cast<int>(total);
}

std::string without_gpu_entries(const std::string& tres) {
  std::string kept;
  for (const std::string& entry : split_fields(tres, ',')) {
    std::string name = entry;
    for (const char* prefix : {"gres:", "gres/"})
      if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
    name = name.substr(0, name.find_first_of(":="));
    if (entry.empty() || name == "gpu") continue;
    kept += (kept.empty() ? "" : ",") + entry;
  }
  return kept;
}

RequestShape request_shape(int gpus, int gpus_per_node) {
  RequestShape s;
  if (gpus < 1 || gpus_per_node < 1) return s;
  s.gpus = gpus;
  s.nodes = (gpus + gpus_per_node - 1) / gpus_per_node;
  s.gpus_per_node = gpus < gpus_per_node ? gpus : gpus_per_node;
  s.whole_nodes = gpus % gpus_per_node == 0;
  return s;
}

std::string format_plan(const GpuPlan& p) {
  std::ostringstream out;
  out << kPlanTag << "gpus=" << p.gpus << ",nodes=" << p.nodes
      << ",gpus_per_node=" << p.gpus_per_node << ",strategy=" << p.strategy << ",tp=" << p.tp
      << ",pp=" << p.pp << ",dp=" << p.dp << ",jct=" << static_cast<long>(p.jct_s + 0.999);
  if (p.deadline) out << ",deadline=" << *p.deadline;
  if (!p.policy.empty()) out << ",policy=" << p.policy;
  out << ",decision=" << p.decision;
  return out.str();
}

namespace {

// One key=value of the plan; false for an unknown key or a bad number.
bool set_field(GpuPlan& p, const std::string& key, const std::string& value) {
  if (key == "strategy") return p.strategy = value, !value.empty();
  if (key == "decision") return p.decision = value, !value.empty();
  if (key == "policy") return p.policy = value, !value.empty();
  const long v = whole(value);
  if (v < 0) return false;
  if (key == "gpus") return p.gpus = static_cast<int>(v), v > 0;
  if (key == "nodes") return p.nodes = static_cast<int>(v), v > 0;
  if (key == "gpus_per_node") return p.gpus_per_node = static_cast<int>(v), v > 0;
  if (key == "tp") return p.tp = static_cast<int>(v), v > 0;
  if (key == "pp") return p.pp = static_cast<int>(v), v > 0;
  if (key == "dp") return p.dp = static_cast<int>(v), v > 0;
  if (key == "jct") return p.jct_s = static_cast<double>(v), true;
  if (key == "deadline") return p.deadline = v, true;
  return false;
}

}  // namespace

std::optional<GpuPlan> parse_plan(const std::string& comment) {
  const size_t at = comment.find(kPlanTag);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + std::strlen(kPlanTag);
  std::string word = comment.substr(start, comment.find_first_of(" ;\n", start) - start);
  // One comma may end the plan ("...,decision=x,"): it has always been read
  // so; any other empty item makes it no plan.
  if (!word.empty() && word.back() == ',') word.pop_back();
  GpuPlan p;
  for (const std::string& item : split_fields(word, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || !set_field(p, item.substr(0, eq), item.substr(eq + 1)))
      return std::nullopt;
  }
  if (p.gpus < 1 || p.nodes < 1 || p.decision.empty()) return std::nullopt;
  return p;
}

std::vector<std::pair<std::string, std::string>> plan_environment(const GpuPlan& p) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"PACML_GPUS", std::to_string(p.gpus)},
      {"PACML_NODES", std::to_string(p.nodes)},
      {"PACML_GPUS_PER_NODE", std::to_string(p.gpus_per_node)},
      {"PACML_STRATEGY", p.strategy},
      {"PACML_TP_SIZE", std::to_string(p.tp)},
      {"PACML_PP_SIZE", std::to_string(p.pp)},
      {"PACML_DP_SIZE", std::to_string(p.dp)},
      {"PACML_PREDICTED_JCT", std::to_string(static_cast<long>(p.jct_s))},
  };
  if (p.deadline) env.emplace_back("PACML_DEADLINE", std::to_string(*p.deadline));
  // Where the job may report the step time it measured (doc/PHYSICAL.md
  // §11.1): the installed pacml-report-steps.
  env.emplace_back("PACML_STEP_REPORT", PACML_INSTALLED_BINDIR "/pacml-report-steps");
  env.emplace_back("PACML_DECISION", p.decision);
  return env;
}

std::vector<std::pair<std::string, std::string>> interactive_step_environment(const GpuPlan& p) {
  // SLURM_NPROCS too: srun reads either, and salloc -n sets both to the
  // user's count, which pacml replaced by k
  const std::string k = std::to_string(p.gpus);
  return {{"SLURM_NTASKS", k}, {"SLURM_NPROCS", k}};
}

}  // namespace pacml::plugin
