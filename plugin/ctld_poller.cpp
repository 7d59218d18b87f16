#include "plugin/ctld_poller.h"

#include <chrono>
#include <cstring>
#include <utility>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/spank.h>  // slurm_info
}

#include "plugin/gpu_plan.h"

namespace pacml::plugin {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The decision id in a job's annotation, "" if none.
std::string decision_in(const char* text) {
  if (!text) return "";
  const char* at = std::strstr(text, "pacml-decision:");
  if (!at) at = std::strstr(text, kPlanTag);
  const char* d = at ? std::strstr(at, "decision=") : nullptr;
  if (!d) return "";
  d += std::strlen("decision=");
  return std::string(d, std::strcspn(d, ", ;"));
}

// One node table load through the public API; nullptr when slurmctld does
// not answer (it is starting, or busy).
struct NodeTableLoad {
  node_info_msg_t* msg = nullptr;
  NodeTableLoad() {
    if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) msg = nullptr;
  }
  ~NodeTableLoad() {
    if (msg) slurm_free_node_info_msg(msg);
  }
  NodeTableLoad(const NodeTableLoad&) = delete;
  NodeTableLoad& operator=(const NodeTableLoad&) = delete;
};

}  // namespace

void CtldPoller::start() {
  started_ = now_seconds();
  thread_ = std::thread([this] { run(); });
}

void CtldPoller::stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool CtldPoller::wait(double seconds) {
  std::unique_lock<std::mutex> lock(stop_mutex_);
  wake_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stop_; });
  return !stop_;
}

bool CtldPoller::partitions_loaded() {
  std::lock_guard<std::mutex> lock(polled_.mutex);
  return polled_.loaded && polled_.nodes_registered;
}

// Every 0.5 s; at once and every 0.05 s until the partitions and nodes are
// known (jobs submitted before then pass through unchanged), but for the
// first kFastPollS only: a node that never registers must not keep a large
// cluster's slurmctld answering 20 node-table loads a second.
double CtldPoller::poll_interval(bool first_pass) {
  if (first_pass) return 0;
  const bool waiting = !partitions_loaded() && now_seconds() - started_ < kFastPollS;
  return waiting ? 0.05 : 0.5;
}

void CtldPoller::run() {
  bool first_pass = true;
  while (wait(poll_interval(first_pass))) {
    first_pass = false;
    try {
      const double now = now_seconds();
      if (now >= next_partitions_) poll_partitions(now);
      poll_node_registration(now);
      if (now >= next_gpus_ && engine_.in_gpu_world()) {  // GRES: only a GPU cluster asks
        poll_node_gpus();
        next_gpus_ = now + 1;
      }
      if (engine_.needs_slurm_check()) check_config_against_slurm();
      match_decisions(now);
      engine_.decision_log().flush(now_seconds());
    } catch (...) {
      // keep polling; nothing here may take slurmctld down
    }
  }
}

void CtldPoller::poll_partitions(double now) {
  partition_info_msg_t* parts = nullptr;
  if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS || !parts) {
    next_partitions_ = now + (partitions_loaded() ? 1 : 0.05);
    return;
  }
  std::map<std::string, std::vector<int>> index;
  std::map<std::string, std::uint32_t> max_minutes;
  std::string dflt;
  for (uint32_t i = 0; i < parts->record_count; ++i) {
    const partition_info_t& p = parts->partition_array[i];
    if (!p.name) continue;
    if (p.flags & PART_FLAG_DEFAULT) dflt = p.name;
    if (p.max_time != INFINITE && p.max_time != NO_VAL) max_minutes[p.name] = p.max_time;
    std::vector<int>& list = index[p.name];
    for (int k = 0; p.node_inx && p.node_inx[k] >= 0; k += 2)
      for (int n = p.node_inx[k]; n <= p.node_inx[k + 1]; ++n) list.push_back(n);
  }
  const unsigned count = parts->record_count;
  slurm_free_partition_info_msg(parts);
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(polled_.mutex);
    first = !polled_.loaded;
    polled_.partition_index = std::move(index);
    polled_.max_minutes = std::move(max_minutes);
    polled_.default_partition = dflt;
    polled_.loaded = true;
  }
  if (first) slurm_info("pacml: partition table loaded (%u partitions)", count);
  next_partitions_ = now + 5;
}

// Until every node has registered since slurmctld started (base state no
// longer UNKNOWN), or kRegistrationWindowS have passed.
void CtldPoller::poll_node_registration(double now) {
  {
    std::lock_guard<std::mutex> lock(polled_.mutex);
    if (polled_.nodes_registered) return;
  }
  NodeTableLoad nodes;
  if (!nodes.msg) return;
  unsigned unknown = 0;
  for (uint32_t i = 0; i < nodes.msg->record_count; ++i)
    if ((nodes.msg->node_array[i].node_state & NODE_STATE_BASE) == NODE_STATE_UNKNOWN) ++unknown;
  const bool waited_out = now - started_ > kRegistrationWindowS;
  if (unknown > 0 && !waited_out) return;
  {
    std::lock_guard<std::mutex> lock(polled_.mutex);
    polled_.nodes_registered = true;
  }
  if (unknown == 0)
    slurm_info("pacml: all %u nodes have registered", nodes.msg->record_count);
  else
    slurm_info(
        "pacml: %u of %u nodes have not registered %.0f s after slurmctld started; pacml "
        "counts them unavailable until they do",
        unknown, nodes.msg->record_count, kRegistrationWindowS);
}

// The GPUs of every node (GRES configured and in use), for a GPU cluster.
void CtldPoller::poll_node_gpus() {
  NodeTableLoad nodes;
  if (!nodes.msg) return;
  std::map<std::string, std::pair<int, int>> gpus;
  for (uint32_t i = 0; i < nodes.msg->record_count; ++i) {
    const node_info_t& n = nodes.msg->node_array[i];
    if (n.name && n.gres)
      gpus[n.name] = {gres_gpu_count(n.gres), n.gres_used ? gres_gpu_count(n.gres_used) : 0};
  }
  std::lock_guard<std::mutex> lock(polled_.mutex);
  polled_.node_gpus = std::move(gpus);
}

// Tells the engine Slurm's partitions and nodes so that it can warn about
// pacml.conf names Slurm does not have.
void CtldPoller::check_config_against_slurm() {
  SlurmCatalog catalog;
  {
    NodeTableLoad nodes;
    if (!nodes.msg) return;
    for (uint32_t i = 0; i < nodes.msg->record_count; ++i)
      catalog.nodes.push_back(nodes.msg->node_array[i].name ? nodes.msg->node_array[i].name : "");
  }
  {
    std::lock_guard<std::mutex> lock(polled_.mutex);
    if (!polled_.loaded) return;
    catalog.default_partition = polled_.default_partition;
    for (const auto& [name, index] : polled_.partition_index) {
      std::vector<std::string>& list = catalog.partitions[name];
      for (int i : index)
        if (i >= 0 && i < static_cast<int>(catalog.nodes.size())) list.push_back(catalog.nodes[i]);
    }
  }
  engine_.check_against_slurm(catalog);
}

// Job ids for the decision log, and reservations whose job has left
// PENDING; one job table load, only while pacml waits for one of its own.
// Decisions are looked for where pacml writes them: the AdminComment, which
// only admins can edit, or the Comment if the site annotates that (the
// engine then checks the job's owner against the decision's user).
void CtldPoller::match_decisions(double now) {
  DecisionLog& log = engine_.decision_log();
  if (log.unresolved().empty() && !engine_.holds_reservations(now)) return;
  const bool in_comment = engine_.annotates_comment();
  job_info_msg_t* jobs = nullptr;
  if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS || !jobs) return;
  for (uint32_t i = 0; i < jobs->record_count; ++i) {
    const slurm_job_info_t& j = jobs->job_array[i];
    const std::string id = decision_in(in_comment ? j.comment : j.admin_comment);
    if (!id.empty())
      engine_.job_seen(id, j.job_id, j.user_id, (j.job_state & JOB_STATE_BASE) == JOB_PENDING);
  }
  slurm_free_job_info_msg(jobs);
}

}  // namespace pacml::plugin
