// A host for job_submit_pacml.so outside slurmctld, shared by the dlopen
// tests (tests/plugin/shim_test.cpp) and the latency bench
// (plugin/bench_job_submit.cpp): load the plugin the way Slurm does
// (doc/SLURM.md §9: dlopen into a program linked with libslurm, which
// exports Slurm's allocator and slurm_conf), and build job_desc_msg_t records
// as slurmctld hands them to job_submit(), with Slurm's allocator.
//
// Header-only: the programs that use it link only libslurm and libdl, never
// pacml's own libraries (the plugin carries those).
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
}

extern "C" {
void slurm_xfree(void**);
char* slurm_xstrdup(const char*);
void* slurm_xcalloc(size_t, size_t, bool, bool, const char*, int, const char*);
extern slurm_conf_t slurm_conf;
}

namespace pacml::plugin::host {

// The job_submit plugin ABI of one dlopen'd .so.
class JobSubmitPlugin {
 public:
  using InitFn = int (*)();
  using SubmitFn = int (*)(job_desc_msg_t*, uint32_t, char**);

  JobSubmitPlugin() = default;
  JobSubmitPlugin(const JobSubmitPlugin&) = delete;
  JobSubmitPlugin& operator=(const JobSubmitPlugin&) = delete;
  ~JobSubmitPlugin() { close(); }

  // Loads `path` (RTLD_NOW | RTLD_GLOBAL, as Slurm's plugin loader). Returns
  // "" on success, else what went wrong. Does not call init().
  std::string open(const std::string& path) {
    close();
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle_) {
      const char* e = dlerror();
      return "dlopen " + path + ": " + (e ? e : "failed");
    }
    init_ = reinterpret_cast<InitFn>(dlsym(handle_, "init"));
    fini_ = reinterpret_cast<InitFn>(dlsym(handle_, "fini"));
    submit_ = reinterpret_cast<SubmitFn>(dlsym(handle_, "job_submit"));
    if (!init_ || !fini_ || !submit_) return path + ": not a job_submit plugin";
    return "";
  }
  void close() {
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
    init_ = fini_ = nullptr;
    submit_ = nullptr;
  }
  bool loaded() const { return handle_ && init_ && fini_ && submit_; }
  void* handle() const { return handle_; }
  const void* symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

  int init() const { return init_(); }
  int fini() const { return fini_(); }
  // job_submit() as slurmctld calls it; `err` (if given) receives *err_msg,
  // which is released with Slurm's allocator as slurmctld does. `earlier`:
  // the message an earlier job_submit plugin left there ("" = none).
  int submit(job_desc_msg_t* desc, std::string* err = nullptr, uint32_t uid = 0,
             const std::string& earlier = "") const {
    char* msg = earlier.empty() ? nullptr : slurm_xstrdup(earlier.c_str());
    const int rc = submit_(desc, uid, &msg);
    if (err) *err = msg ? msg : "";
    slurm_xfree(reinterpret_cast<void**>(&msg));
    return rc;
  }

 private:
  void* handle_ = nullptr;
  InitFn init_ = nullptr;
  InitFn fini_ = nullptr;
  SubmitFn submit_ = nullptr;
};

// A job description as slurmctld hands it to job_submit(); every string the
// plugin may set or replace is released with slurm_xfree.
class JobDesc {
 public:
  explicit JobDesc(const std::string& name = "test") {
    slurm_init_job_desc_msg(&d);
    d.user_id = getuid();
    d.group_id = getgid();
    d.het_job_offset = NO_VAL;  // slurmctld sets this for a job that is not heterogeneous
    d.name = slurm_xstrdup(name.c_str());
  }
  JobDesc(const JobDesc&) = delete;
  JobDesc& operator=(const JobDesc&) = delete;
  ~JobDesc() {
    for (uint32_t i = 0; d.spank_job_env && i < d.spank_job_env_size; ++i)
      slurm_xfree(reinterpret_cast<void**>(&d.spank_job_env[i]));
    slurm_xfree(reinterpret_cast<void**>(&d.spank_job_env));
    for (char** s : {&d.name, &d.req_nodes, &d.exc_nodes, &d.comment, &d.admin_comment,
                     &d.partition, &d.array_inx, &d.tres_per_node, &d.tres_per_task})
      slurm_xfree(reinterpret_cast<void**>(s));
  }
  // The SPANK job environment ("_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", …).
  JobDesc& spank(const std::vector<std::string>& env) {
    d.spank_job_env = static_cast<char**>(
        slurm_xcalloc(env.size() + 1, sizeof(char*), true, false, __FILE__, __LINE__, __func__));
    for (size_t i = 0; i < env.size(); ++i) d.spank_job_env[i] = slurm_xstrdup(env[i].c_str());
    d.spank_job_env_size = static_cast<uint32_t>(env.size());
    return *this;
  }
  JobDesc& comment(const std::string& text) {
    slurm_xfree(reinterpret_cast<void**>(&d.comment));
    d.comment = slurm_xstrdup(text.c_str());
    return *this;
  }

  job_desc_msg_t d;
};

// Sets slurm_conf.sched_params (slurm.conf's SchedulerParameters) as
// slurmctld would after reading slurm.conf; "" clears it.
inline void set_sched_params(const std::string& text) {
  slurm_xfree(reinterpret_cast<void**>(&slurm_conf.sched_params));
  if (!text.empty()) slurm_conf.sched_params = slurm_xstrdup(text.c_str());
}

}  // namespace pacml::plugin::host
