// job_submit_pacml.so and spank_pacml.so loaded the way Slurm loads them:
// dlopen into a host linked with libslurm (SLURM-RECIPE.md §9), then
// job_submit() on job_desc_msg_t records built with Slurm's allocator.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
}

extern "C" {
void slurm_xfree(void**);
char* slurm_xstrdup(const char*);
void* slurm_xcalloc(size_t, size_t, bool, bool, const char*, int, const char*);
}

namespace {

using InitFn = int (*)();
using SubmitFn = int (*)(job_desc_msg_t*, uint32_t, char**);

// A job description as slurmctld hands it to job_submit().
class JobDesc {
 public:
  JobDesc() {
    slurm_init_job_desc_msg(&d);
    d.user_id = getuid();
    d.group_id = getgid();
    d.het_job_offset = NO_VAL;  // slurmctld sets this for a job that is not heterogeneous
    d.name = slurm_xstrdup("test");
  }
  ~JobDesc() {
    for (uint32_t i = 0; i < d.spank_job_env_size; ++i)
      slurm_xfree(reinterpret_cast<void**>(&d.spank_job_env[i]));
    slurm_xfree(reinterpret_cast<void**>(&d.spank_job_env));
    for (char** s : {&d.name, &d.req_nodes, &d.comment, &d.admin_comment, &d.partition})
      slurm_xfree(reinterpret_cast<void**>(s));
  }
  JobDesc& spank(const std::vector<std::string>& env) {
    d.spank_job_env = static_cast<char**>(
        slurm_xcalloc(env.size() + 1, sizeof(char*), true, false, __FILE__, __LINE__, __func__));
    for (size_t i = 0; i < env.size(); ++i) d.spank_job_env[i] = slurm_xstrdup(env[i].c_str());
    d.spank_job_env_size = static_cast<uint32_t>(env.size());
    return *this;
  }
  job_desc_msg_t d;
};

class Plugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/pacml-shim-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    write_conf("topology: 4x4x2\nnodes: n[1-32]\nresolve_job_ids: false\nreservation_ttl: 0\n");
    std::ofstream(dir_ + "/slurm.conf") << "# only its directory matters\n";
    setenv("SLURM_CONF", (dir_ + "/slurm.conf").c_str(), 1);
    handle_ = dlopen(PACML_JOB_SUBMIT_SO, RTLD_NOW | RTLD_GLOBAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    init_ = reinterpret_cast<InitFn>(dlsym(handle_, "init"));
    fini_ = reinterpret_cast<InitFn>(dlsym(handle_, "fini"));
    submit_ = reinterpret_cast<SubmitFn>(dlsym(handle_, "job_submit"));
    ASSERT_TRUE(init_ && fini_ && submit_);
    ASSERT_EQ(init_(), SLURM_SUCCESS);
  }
  static void TearDownTestSuite() {
    if (fini_) fini_();
    if (handle_) dlclose(handle_);
    const std::string cmd = "rm -rf '" + dir_ + "'";
    if (system(cmd.c_str()) != 0) {
    }
  }
  static void write_conf(const std::string& text) {
    const std::string tmp = dir_ + "/.pacml.conf", dst = dir_ + "/pacml.conf";
    std::ofstream(tmp) << text;
    rename(tmp.c_str(), dst.c_str());
  }
  int submit(JobDesc& job, std::string* err = nullptr) {
    char* msg = nullptr;
    const int rc = submit_(&job.d, 0, &msg);
    if (err) *err = msg ? msg : "";
    slurm_xfree(reinterpret_cast<void**>(&msg));
    return rc;
  }

  static std::string dir_;
  static void* handle_;
  static InitFn init_, fini_;
  static SubmitFn submit_;
};

std::string Plugin::dir_;
void* Plugin::handle_ = nullptr;
InitFn Plugin::init_ = nullptr;
InitFn Plugin::fini_ = nullptr;
SubmitFn Plugin::submit_ = nullptr;

TEST_F(Plugin, ExportsTheSlurmPluginAbi) {
  const char* type = static_cast<const char*>(dlsym(handle_, "plugin_type"));
  ASSERT_NE(type, nullptr);
  EXPECT_STREQ(type, "job_submit/pacml");
  const uint32_t* version = static_cast<const uint32_t*>(dlsym(handle_, "plugin_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(*version, static_cast<uint32_t>(SLURM_VERSION_NUMBER));
  EXPECT_NE(dlsym(handle_, "plugin_name"), nullptr);
  EXPECT_NE(dlsym(handle_, "job_modify"), nullptr);
  // core's C++ symbols stay inside the .so
  EXPECT_EQ(
      dlsym(handle_, "_ZN5pacml15place_first_fitERKNS_16PartitionedGraphERKNS_12ClusterStateE"),
      nullptr);
}

TEST_F(Plugin, JobWithoutPacmlOptionsIsUntouched) {
  JobDesc job;
  job.spank({"SOMETHING=else"});
  job.d.comment = slurm_xstrdup("hello");
  job.d.time_limit = 5;
  ASSERT_EQ(submit(job), SLURM_SUCCESS);
  EXPECT_EQ(job.d.min_nodes, NO_VAL);
  EXPECT_EQ(job.d.max_nodes, NO_VAL);
  EXPECT_EQ(job.d.req_nodes, nullptr);
  EXPECT_EQ(job.d.admin_comment, nullptr);
  EXPECT_EQ(job.d.time_limit, 5u);
  EXPECT_STREQ(job.d.comment, "hello");
  EXPECT_EQ(job.d.shared, static_cast<uint16_t>(NO_VAL16));
}

TEST_F(Plugin, SpankOptionsRewriteTheJob) {
  JobDesc job;
  job.spank(
      {"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", "_SLURM_SPANK_OPTION_pacml_pacml_beta=0.45"});
  job.d.min_nodes = 7;  // the user's own count is replaced
  ASSERT_EQ(submit(job), SLURM_SUCCESS);
  EXPECT_EQ(job.d.min_nodes, 4u);
  EXPECT_EQ(job.d.max_nodes, 4u);
  ASSERT_NE(job.d.req_nodes, nullptr);
  EXPECT_STREQ(job.d.req_nodes, "n1,n3,n9,n11");
  EXPECT_EQ(job.d.shared, JOB_SHARED_NONE);
  EXPECT_EQ(job.d.time_limit, 2u);
  ASSERT_NE(job.d.admin_comment, nullptr);
  EXPECT_EQ(std::string(job.d.admin_comment).rfind("pacml-decision:degree=4,", 0), 0u)
      << job.d.admin_comment;
}

TEST_F(Plugin, CommentFallbackWorksAndKeepsTheComment) {
  JobDesc job;
  job.d.comment = slurm_xstrdup("run7 pacml:model=gnmt,deadline=4.2s");
  ASSERT_EQ(submit(job), SLURM_SUCCESS);
  EXPECT_EQ(job.d.min_nodes, 4u);
  EXPECT_STREQ(job.d.comment, "run7 pacml:model=gnmt,deadline=4.2s");
}

TEST_F(Plugin, RejectionsReachTheUser) {
  JobDesc blocked;
  blocked.spank(
      {"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", "_SLURM_SPANK_OPTION_pacml_pacml_beta=0.1"});
  std::string err;
  EXPECT_EQ(submit(blocked, &err), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE);
  EXPECT_NE(err.find("cannot meet its requirement"), std::string::npos) << err;
  JobDesc negative;
  negative.spank({"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt",
                  "_SLURM_SPANK_OPTION_pacml_pacml_deadline=-1:00"});
  EXPECT_EQ(submit(negative, &err), ESLURM_INVALID_TIME_VALUE);
  EXPECT_NE(err.find("must not be negative"), std::string::npos) << err;
  JobDesc unknown;
  unknown.spank({"_SLURM_SPANK_OPTION_pacml_pacml_model=nosuchnet",
                 "_SLURM_SPANK_OPTION_pacml_pacml_beta=0.5"});
  EXPECT_EQ(submit(unknown, &err), SLURM_ERROR);
  EXPECT_NE(err.find("unknown model 'nosuchnet'"), std::string::npos) << err;
  JobDesc array;
  array.spank({"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt"});
  array.d.array_inx = slurm_xstrdup("1-4");
  EXPECT_EQ(submit(array, &err), SLURM_ERROR);
  EXPECT_NE(err.find("job arrays"), std::string::npos);
  slurm_xfree(reinterpret_cast<void**>(&array.d.array_inx));
}

TEST_F(Plugin, BrokenConfigKeepsDecidingWithTheLastGoodOne) {
  write_conf("policy: does-not-exist\n");
  JobDesc job;
  job.spank(
      {"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", "_SLURM_SPANK_OPTION_pacml_pacml_beta=0.45"});
  EXPECT_EQ(submit(job), SLURM_SUCCESS);
  EXPECT_EQ(job.d.min_nodes, 4u);
  write_conf("topology: 4x4x2\nnodes: n[1-32]\nresolve_job_ids: false\nreservation_ttl: 0\n");
}

TEST_F(Plugin, WithoutAnyGoodConfigJobsPassThrough) {
  ASSERT_EQ(fini_(), SLURM_SUCCESS);
  write_conf("on_block: sometimes\n");
  ASSERT_EQ(init_(), SLURM_SUCCESS);
  JobDesc job;
  job.spank(
      {"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", "_SLURM_SPANK_OPTION_pacml_pacml_beta=0.45"});
  EXPECT_EQ(submit(job), SLURM_SUCCESS);
  EXPECT_EQ(job.d.min_nodes, NO_VAL);
  EXPECT_EQ(job.d.req_nodes, nullptr);
  ASSERT_EQ(fini_(), SLURM_SUCCESS);
  write_conf("topology: 4x4x2\nnodes: n[1-32]\nresolve_job_ids: false\nreservation_ttl: 0\n");
  ASSERT_EQ(init_(), SLURM_SUCCESS);
}

TEST(SpankPlugin, ExportsTheSpankAbi) {
  void* h = dlopen(PACML_SPANK_SO, RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  EXPECT_STREQ(static_cast<const char*>(dlsym(h, "plugin_type")), "spank");
  EXPECT_STREQ(static_cast<const char*>(dlsym(h, "plugin_name")), "pacml");
  EXPECT_NE(dlsym(h, "slurm_spank_init"), nullptr);
  EXPECT_NE(dlsym(h, "slurm_spank_init_post_opt"), nullptr);
  dlclose(h);
}

}  // namespace
