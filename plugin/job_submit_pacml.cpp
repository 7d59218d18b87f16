// job_submit/pacml — Slurm's entry points, a thin C ABI shim over the
// decision engine (engine.h). Everything Slurm-specific lives here:
//
//  * Cluster state is read from slurmctld's exported globals (idle and
//    available node bitmaps) under the read locks slurmctld already holds
//    while it calls job_submit(). Never an RPC into slurmctld from
//    job_submit(): that deadlocks (doc/SLURM.md §7). The globals are weak
//    so that the same .so loads in a unit-test host without slurmctld.
//  * A background thread (started only inside slurmctld, ctld_poller.h)
//    polls the public API outside the locks for what the globals do not
//    give: the nodes of each partition, whether the nodes have registered,
//    GPUs per node, and the job ids of recent decisions for the decision log.
//  * slurm.conf's SchedulerParameters (slurm_conf.sched_params) is handed to
//    the engine on every submission: Slurm 22.05's `scontrol reconfigure`
//    rebuilds slurm_conf without re-initialising this plugin (23.11 on start
//    a new slurmctld, and init() reads it), and job_submit() runs under the
//    config read lock, so the next submission sees the new text.
//  * Strings handed to Slurm come from Slurm's allocator (slurm_xstrdup) and
//    replaced ones are released with slurm_xfree.
//  * No exception crosses the C boundary; a failure passes the job through.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h>  // slurm_info / slurm_error
}

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "plugin/ctld_poller.h"
#include "plugin/engine.h"
#include "plugin/gpu_plan.h"
#include "plugin/job_env.h"
#include "plugin/request.h"
#include "plugin/slurm_release.h"

struct job_record;
typedef struct job_record job_record_t;

extern "C" {
// Slurm's allocator (libslurm / libslurmfull; not in a public header).
void slurm_xfree(void**);
char* slurm_xstrdup(const char*);
char* slurm_get_extra_conf_path(const char*);
int slurm_env_array_overwrite(char*** array, const char* name, const char* value);
// slurm.conf as slurmctld (or libslurm in a test host) parsed it; read only
// under slurmctld's config read lock (init, job_submit).
extern slurm_conf_t slurm_conf;

// slurmctld's globals and helpers: weak, so that the plugin also loads where
// they do not exist (a unit-test host); NULL there.
extern bitstr_t* idle_node_bitmap __attribute__((weak));
extern bitstr_t* avail_node_bitmap __attribute__((weak));
extern int node_record_count __attribute__((weak));
extern char* default_part_name __attribute__((weak));
char* bitmap2node_name(bitstr_t*) __attribute__((weak));
bitstr_t* slurm_bit_alloc(bitoff_t) __attribute__((weak));
void slurm_bit_set(bitstr_t*, bitoff_t) __attribute__((weak));
void slurm_bit_clear(bitstr_t*, bitoff_t) __attribute__((weak));
int slurm_bit_test(bitstr_t*, bitoff_t) __attribute__((weak));
void slurm_bit_free(bitstr_t**) __attribute__((weak));

extern const char plugin_name[];
extern const char plugin_type[];
extern const uint32_t plugin_version;
}

const char plugin_name[] = "pacml: PAC-ML job partitioning and RAMP placement";
const char plugin_type[] = "job_submit/pacml";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

namespace {

using pacml::plugin::CtldPoller;
using pacml::plugin::Engine;
using pacml::plugin::kGresTresPrefix;
using pacml::plugin::LogLevel;
using pacml::plugin::NodeStatus;
using pacml::plugin::Outcome;
using pacml::plugin::Polled;
using pacml::plugin::RejectKind;

bool inside_slurmctld() {
  return &idle_node_bitmap != nullptr && &avail_node_bitmap != nullptr &&
         &node_record_count != nullptr && bitmap2node_name != nullptr &&
         slurm_bit_alloc != nullptr && slurm_bit_test != nullptr;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Every line is escaped here too (idempotent), so that no text from a user
// or an exception reaches slurmctld's log with a raw newline.
void log_line(LogLevel level, const std::string& raw) {
  const std::string message = pacml::slurm::escape_for_log(raw);
  switch (level) {
    case LogLevel::kError:
      slurm_error("%s", message.c_str());
      break;
    case LogLevel::kDebug:
      slurm_debug("%s", message.c_str());
      break;
    default:  // info and warning (Slurm's API has no warning level)
      slurm_info("%s", message.c_str());
  }
}

// slurmctld's node table by name (node index), rebuilt when it changes.
struct NodeTable {
  int count = -1;
  std::map<std::string, int> index_of;
  std::vector<std::string> name_of;

  void refresh() {
    if (count == node_record_count) return;
    index_of.clear();
    name_of.assign(node_record_count, "");
    bitstr_t* bits = slurm_bit_alloc(node_record_count);
    for (int i = 0; i < node_record_count; ++i) {
      slurm_bit_set(bits, i);
      char* name = bitmap2node_name(bits);
      if (name && *name) index_of[name] = i, name_of[i] = name;
      slurm_xfree(reinterpret_cast<void**>(&name));
      slurm_bit_clear(bits, i);
    }
    slurm_bit_free(&bits);
    count = node_record_count;
  }
};

struct State {
  std::unique_ptr<Engine> engine;
  Polled polled;
  NodeTable nodes;
  std::mutex nodes_mutex;
  std::unique_ptr<CtldPoller> poller;  // inside slurmctld only
};

State* g_state = nullptr;

// The view of slurmctld handed to the engine, valid during one job_submit().
class CtldView : public pacml::plugin::SlurmView {
 public:
  explicit CtldView(State& s)
      : s_(s), live_(inside_slurmctld()), lock_(s.nodes_mutex), table_(s.nodes) {
    if (live_) s_.nodes.refresh();
  }
  bool partition_nodes(const std::string& partition,
                       std::vector<std::string>& nodes) const override {
    if (!live_) return false;
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    auto it = s_.polled.partition_index.find(partition);
    if (it == s_.polled.partition_index.end()) return false;
    nodes.clear();
    for (int i : it->second)
      if (i >= 0 && i < static_cast<int>(table_.name_of.size())) nodes.push_back(table_.name_of[i]);
    return true;
  }
  std::string default_partition() const override {
    if (&default_part_name != nullptr && default_part_name) return default_part_name;
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    return s_.polled.default_partition;
  }
  bool partition_limits_known(const std::string& partition) const override {
    if (!live_) return true;  // a unit-test host: no partition table to wait for
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    return s_.polled.loaded && s_.polled.partition_index.count(partition);
  }
  bool nodes_registering() const override {
    if (!live_) return false;
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    return !s_.polled.nodes_registered;
  }
  std::optional<std::uint32_t> partition_max_minutes(const std::string& partition) const override {
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    auto it = s_.polled.max_minutes.find(partition);
    if (it == s_.polled.max_minutes.end()) return std::nullopt;
    return it->second;
  }
  int node_gpus(const std::string& node) const override { return gpus_of(node).first; }
  int node_gpus_used(const std::string& node) const override { return gpus_of(node).second; }
  NodeStatus node_status(const std::string& node) const override {
    if (!live_) return NodeStatus::kFree;  // unit-test host: nothing runs
    auto it = table_.index_of.find(node);
    if (it == table_.index_of.end() || !idle_node_bitmap || !avail_node_bitmap)
      return NodeStatus::kUnknown;
    if (!slurm_bit_test(avail_node_bitmap, it->second)) return NodeStatus::kUnavailable;
    return slurm_bit_test(idle_node_bitmap, it->second) ? NodeStatus::kFree : NodeStatus::kBusy;
  }

 private:
  std::pair<int, int> gpus_of(const std::string& node) const {
    std::lock_guard<std::mutex> lock(s_.polled.mutex);
    auto it = s_.polled.node_gpus.find(node);
    return it == s_.polled.node_gpus.end() ? std::pair<int, int>{0, 0} : it->second;
  }
  State& s_;
  bool live_;
  std::unique_lock<std::mutex> lock_;  // held while the engine decides
  const NodeTable& table_;
};

void replace_string(char** field, const std::string& value) {
  slurm_xfree(reinterpret_cast<void**>(field));
  *field = value.empty() ? nullptr : slurm_xstrdup(value.c_str());
}

// Replaces the GPU entries of a TRES field by `gpus` ("" for none) and keeps
// the user's other GRES: --gres=gpu:4,nvme:1 keeps nvme:1.
void set_gpu_tres(char** field, const std::string& gpus) {
  std::string kept = pacml::plugin::without_gpu_entries(*field ? *field : "");
  if (!gpus.empty()) kept = kept.empty() ? gpus : gpus + "," + kept;
  replace_string(field, kept);
}

// GPUs in a TRES request ("gres:gpu:4", "gres/gpu:a100:2;mem=…"): the
// job_desc form of --gpus, --gpus-per-node, --gpus-per-task and --gres.
int tres_gpus(const char* tres) {
  if (!tres) return 0;
  std::string flat;
  for (const char* c = tres; *c; ++c) flat += *c == ';' ? ',' : *c;
  for (const char* prefix : {"gres:", "gres/"})
    for (size_t at; (at = flat.find(prefix)) != std::string::npos;)
      flat.erase(at, std::strlen(prefix));
  return pacml::plugin::gres_gpu_count(flat);
}

// The GPUs the user asked for, in total; 0 if none.
int requested_gpus(const job_desc_msg_t* d) {
  const int nodes = d->min_nodes == NO_VAL || d->min_nodes == 0 ? 1 : d->min_nodes;
  const int tasks = d->num_tasks == NO_VAL || d->num_tasks == 0 ? 1 : d->num_tasks;
  if (const int n = tres_gpus(d->tres_per_job)) return n;
  if (const int n = tres_gpus(d->tres_per_node)) return n * nodes;
  return tres_gpus(d->tres_per_task) * tasks;
}

// The most names a user's -w or --exclude may hold: the cluster's node
// count (more names must repeat or name nodes Slurm does not have).
std::size_t hostlist_cap() {
  if (!inside_slurmctld() || node_record_count <= 0) return pacml::slurm::kMaxHostlistNames;
  return std::min(pacml::slurm::kMaxHostlistNames, static_cast<std::size_t>(node_record_count));
}

// A hostlist the user gave (-w, --exclude), counted before it is expanded
// (a few hundred bytes can name millions of nodes). Empty if malformed:
// Slurm itself checks and reports it after job_submit. Throws InputError
// when it names more nodes than the cluster has.
std::vector<std::string> user_hostlist(const char* text, const char* option) {
  if (!text || !*text) return {};
  try {
    pacml::slurm::count_hostlist(text, option);
  } catch (const pacml::InputError&) {
    return {};
  }
  return pacml::slurm::expand_hostlist(text, option, hostlist_cap());
}

void read_user_limits(const job_desc_msg_t* d, pacml::plugin::SubmitInput& in) {
  in.requested_gpus = requested_gpus(d);
  // srun and salloc send min_nodes = 1 without -N: a minimum of one node
  // limits nothing, so only a larger one counts as the user's.
  if (d->min_nodes != NO_VAL && d->min_nodes > 1) in.min_nodes = static_cast<int>(d->min_nodes);
  if (d->max_nodes != NO_VAL && d->max_nodes > 0) in.max_nodes = static_cast<int>(d->max_nodes);
  in.required_nodes = user_hostlist(d->req_nodes, "-w");
  in.excluded_nodes = user_hostlist(d->exc_nodes, "--exclude");
}

// A GPU cluster's request as cons_tres expresses it (plugin/README.md, "GPU
// cluster"): k tasks on exactly ⌈k/G⌉ nodes; whole nodes exclusively with
// gres:gpu:G per node, otherwise one GPU per task on shared nodes; nodes
// without GPU GRES (G from the cluster description) exclusively, no GRES. -w and
// --exclude stay as the user gave them: Slurm picks the nodes.
void apply_gpu_request(job_desc_msg_t* d, const pacml::plugin::SubmitResult& r) {
  const pacml::plugin::RequestShape& s = r.shape;
  d->min_nodes = d->max_nodes = static_cast<uint32_t>(s.nodes);
  d->num_tasks = static_cast<uint32_t>(s.gpus);
  set_gpu_tres(&d->tres_per_job, "");
  set_gpu_tres(&d->tres_per_socket, "");
  if (!r.gres_gpus) {  // Slurm cannot count GPUs it does not know: whole nodes, a task per GPU
    set_gpu_tres(&d->tres_per_node, "");
    set_gpu_tres(&d->tres_per_task, "");
    d->ntasks_per_node = static_cast<uint16_t>(s.gpus_per_node);
    d->shared = JOB_SHARED_NONE;
  } else if (s.whole_nodes) {
    set_gpu_tres(&d->tres_per_node,
                 std::string(kGresTresPrefix) + "gpu:" + std::to_string(s.gpus_per_node));
    set_gpu_tres(&d->tres_per_task, "");
    d->ntasks_per_node = static_cast<uint16_t>(s.gpus_per_node);
    d->shared = JOB_SHARED_NONE;  // all their GPUs: nobody else can use the nodes
  } else {
    set_gpu_tres(&d->tres_per_node, "");
    set_gpu_tres(&d->tres_per_task, std::string(kGresTresPrefix) + "gpu:1");
    d->ntasks_per_node = s.nodes == 1 ? static_cast<uint16_t>(s.gpus) : NO_VAL16;
  }
  if (!d->script) return;  // srun/salloc: the SPANK plugin sets the variables
  for (const auto& [name, value] : r.job_env)
    slurm_env_array_overwrite(&d->environment, name.c_str(), value.c_str());
  uint32_t n = 0;
  while (d->environment && d->environment[n]) ++n;
  d->env_size = n;
}

int reject_code(RejectKind kind) {
  switch (kind) {
    case RejectKind::kBadTime:
      return ESLURM_INVALID_TIME_VALUE;
    case RejectKind::kBlocked:
      return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    case RejectKind::kUnmanagedPartition:
      return ESLURM_INVALID_PARTITION_NAME;
    default:
      return SLURM_ERROR;
  }
}

// Tells the user `text` through *err_msg, which earlier job_submit plugins
// may have set already (job_submit.c hands every plugin the same pointer;
// the caller xfree()s it): their message is kept and ours follows it.
void tell_user(char** err_msg, const std::string& text) {
  if (!err_msg || text.empty()) return;
  if (!*err_msg || !**err_msg) {
    slurm_xfree(reinterpret_cast<void**>(err_msg));
    *err_msg = slurm_xstrdup(text.c_str());
    return;
  }
  const std::string both = std::string(*err_msg) + "\n" + text;
  slurm_xfree(reinterpret_cast<void**>(err_msg));
  *err_msg = slurm_xstrdup(both.c_str());
}

// Whether the job asks for pacml; a malformed request does (the engine
// refuses it with a message).
bool wants_pacml(const pacml::plugin::SubmitInput& in) {
  try {
    return pacml::plugin::extract_request(in.spank_env, in.comment).wants_pacml;
  } catch (...) {
    return true;
  }
}

int submit(job_desc_msg_t* d, char** err_msg) {
  State& s = *g_state;
  pacml::plugin::SubmitInput in;
  in.spank_env = pacml::plugin::take_spank_env(d);
  in.comment = d->comment ? d->comment : "";
  // Other jobs pass untouched and unread: nothing of theirs is parsed here.
  if (!wants_pacml(in)) return SLURM_SUCCESS;
  in.uid = d->user_id;
  in.gid = d->group_id;
  in.partition = d->partition ? d->partition : "";
  in.time_limit_minutes =
      (d->time_limit == NO_VAL || d->time_limit == INFINITE) ? 0 : d->time_limit;
  in.time_unlimited = d->time_limit == INFINITE;
  in.work_dir = d->work_dir ? d->work_dir : "";
  in.job_name = d->name ? d->name : "";
  in.now = now_seconds();
  if ((d->array_inx && *d->array_inx) || d->het_job_offset != NO_VAL) {
    // Arrays and heterogeneous jobs would all get one node list.
    tell_user(err_msg,
              "pacml: job arrays and heterogeneous jobs are not supported; submit separate jobs");
    return SLURM_ERROR;
  }
  try {
    read_user_limits(d, in);
  } catch (const pacml::InputError& e) {
    tell_user(err_msg, std::string("pacml: ") + e.what());
    return ESLURM_INVALID_NODE_NAME;
  }
  s.engine->set_sched_params(slurm_conf.sched_params ? slurm_conf.sched_params : "");
  CtldView view(s);
  const pacml::plugin::SubmitResult r = s.engine->submit(in, view);
  if (!r.log_message.empty())
    log_line(r.log_is_error ? LogLevel::kError : LogLevel::kInfo, r.log_message);
  // sbatch, srun and salloc print a job_submit plugin's message on success too.
  if (r.outcome != Outcome::kRejected) tell_user(err_msg, r.user_notice);
  switch (r.outcome) {
    case Outcome::kPassThrough:
      return SLURM_SUCCESS;
    case Outcome::kRejected:
      tell_user(err_msg, r.user_message);
      return reject_code(r.reject);
    case Outcome::kPlaced:
    case Outcome::kQueued:
      break;
  }
  if (r.shape.gpus > 0) {
    apply_gpu_request(d, r);
  } else {
    std::string list;
    for (const std::string& n : r.nodes) list += (list.empty() ? "" : ",") + n;
    d->min_nodes = d->max_nodes = static_cast<uint32_t>(r.num_nodes);
    replace_string(&d->req_nodes, list);
    d->shared = JOB_SHARED_NONE;  // exclusive nodes: the RAMP rule
  }
  if (r.slurm_deadline > 0) d->deadline = static_cast<time_t>(r.slurm_deadline);
  if (r.time_min_minutes > 0) d->time_min = r.time_min_minutes;
  if (r.time_limit_minutes > 0) d->time_limit = r.time_limit_minutes;  // else the job's own
  if (!r.partition.empty()) replace_string(&d->partition, r.partition);
  if (!r.request_comment.empty()) {
    const std::string comment = d->comment ? d->comment : "";
    replace_string(&d->comment,
                   comment.empty() ? r.request_comment : comment + " " + r.request_comment);
  }
  char** field = r.annotate_admin_comment ? &d->admin_comment : &d->comment;
  const std::string old = *field ? *field : "";
  replace_string(field, old.empty() ? r.annotation : old + " " + r.annotation);
  return SLURM_SUCCESS;
}

}  // namespace

extern "C" int init(void) {
  try {
    char* path = slurm_get_extra_conf_path("pacml.conf");
    const std::string conf = path ? path : "/etc/slurm/pacml.conf";
    slurm_xfree(reinterpret_cast<void**>(&path));
    g_state = new State;
    g_state->engine = std::make_unique<Engine>(conf, log_line);
    g_state->engine->set_sched_params(slurm_conf.sched_params ? slurm_conf.sched_params : "");
    g_state->engine->refresh_config();
    if (inside_slurmctld()) {
      g_state->poller = std::make_unique<CtldPoller>(*g_state->engine, g_state->polled);
      g_state->poller->start();
    }
    slurm_info(
        "pacml: job_submit/pacml loaded (config %s%s); users' graph files are read by "
        "the SPANK plugin, never by slurmctld",
        g_state->engine->config_path().c_str(), inside_slurmctld() ? "" : ", outside slurmctld");
  } catch (const std::exception& e) {
    log_line(LogLevel::kError,
             std::string("pacml: init failed: ") + e.what() + "; jobs pass through unchanged");
  } catch (...) {
    slurm_error("pacml: init failed; jobs pass through unchanged");
  }
  return SLURM_SUCCESS;  // never keep slurmctld from starting
}

extern "C" int fini(void) {
  try {
    if (!g_state) return SLURM_SUCCESS;
    if (g_state->poller) g_state->poller->stop();
    if (g_state->engine) g_state->engine->decision_log().flush(now_seconds(), true);
    delete g_state;
    g_state = nullptr;
  } catch (...) {
    slurm_error("pacml: fini failed");
  }
  return SLURM_SUCCESS;
}

extern "C" int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
  (void)submit_uid;
  try {
    if (!g_state || !g_state->engine || !job_desc) return SLURM_SUCCESS;
    return submit(job_desc, err_msg);
  } catch (const std::exception& e) {
    log_line(
        LogLevel::kError,
        std::string("pacml: job passed through unchanged after an internal error: ") + e.what());
  } catch (...) {
    slurm_error("pacml: job passed through unchanged after an internal error");
  }
  return SLURM_SUCCESS;
}

extern "C" int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid) {
  (void)job_desc, (void)job_ptr, (void)submit_uid;
  return SLURM_SUCCESS;
}
