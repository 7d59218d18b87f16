#include "sim/trace/trace.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/trace/trace_workload.h"
#include "tests/sim/sim_test_util.h"

namespace pacml::sim {
namespace {

std::vector<TraceRecord> read(const std::string& text, TraceFormat format, TraceReport& report,
                              bool skip_bad = false) {
  std::istringstream in(text);
  TraceReadOptions options;
  options.skip_bad = skip_bad;
  return read_trace(in, "t.csv", format, options, report);
}

std::string error_of(const std::string& text, TraceFormat format) {
  TraceReport report;
  try {
    read(text, format, report);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kHeader =
    "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";

TEST(TraceReaders, ElasticFlowRecords) {
  TraceReport report;
  const auto records =
      read(std::string(kHeader) + "a,100,5000,resnet50,400,64,2,150\nb,90,10,bert,200,32,1,100\n",
           TraceFormat::kElasticFlow, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, "a");
  EXPECT_EQ(records[0].submit, 100);
  EXPECT_EQ(records[0].iterations, 5000);
  EXPECT_EQ(records[0].model, "resnet50");
  EXPECT_EQ(records[0].deadline, 400);
  EXPECT_EQ(records[0].gpus, 2);
  EXPECT_EQ(records[0].duration, 150);
  EXPECT_EQ(records[0].source, "t.csv:2");
  EXPECT_EQ(report.records, 2);
}

TEST(TraceReaders, BadElasticFlowInputNamesFileAndLine) {
  EXPECT_NE(
      error_of(std::string(kHeader) + "a,100,5000,resnet50,400,64,2\n", TraceFormat::kElasticFlow)
          .find("t.csv:2: expected 8"),
      std::string::npos);
  EXPECT_NE(
      error_of(std::string(kHeader) + "a,-5,5000,resnet50,400,64,2,1\n", TraceFormat::kElasticFlow)
          .find("t.csv:2: submission_time is negative"),
      std::string::npos);
  EXPECT_NE(
      error_of(std::string(kHeader) + "a,5,x,resnet50,400,64,2,1\n", TraceFormat::kElasticFlow)
          .find("t.csv:2"),
      std::string::npos);
  EXPECT_NE(error_of("job_id,submission_time,colour\n", TraceFormat::kElasticFlow)
                .find("t.csv:1: unknown column 'colour'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + "a,500,50,bert,400,64,2,1\n", TraceFormat::kElasticFlow)
                .find("deadline"),
            std::string::npos);
  EXPECT_NE(error_of("", TraceFormat::kElasticFlow).find("empty"), std::string::npos);
}

TEST(TraceReaders, SkippingBadLinesCountsThem) {
  TraceReport report;
  const auto records = read(std::string(kHeader) +
                                "a,100,5000,resnet50,400,64,2,150\n"
                                "b,-1,10,bert,200,32,1,100\n"
                                "c,1,2\n"
                                "d,5,10,bert,200,32,1,100\n",
                            TraceFormat::kElasticFlow, report, true);
  EXPECT_EQ(records.size(), 2u);
  EXPECT_EQ(report.skipped, 2);
  EXPECT_EQ(report.skipped_by_reason["negative submission_time"], 1);
  EXPECT_EQ(report.skipped_by_reason["wrong field count"], 1);
}

TEST(TraceReaders, Swf) {
  TraceReport report;
  const auto records = read(
      "; Version: 2.2\n"
      "    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 "
      "-1\n"
      "   57    25574     -1     10    1     -1    -1   -1   3600    -1 -1   4   1   2 -1 -1 -1 "
      "-1\n",
      TraceFormat::kSwf, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].gpus, 128);
  EXPECT_EQ(records[0].duration, 1451);
  EXPECT_TRUE(std::isnan(records[0].time_limit));
  EXPECT_EQ(records[1].time_limit, 3600);
  EXPECT_EQ(records[1].executable, "2");
  EXPECT_NE(error_of("1 2 3\n", TraceFormat::kSwf).find("t.csv:1: an SWF line has 18 fields"),
            std::string::npos);
  EXPECT_NE(error_of("1 -5 -1 10 1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1\n", TraceFormat::kSwf)
                .find("negative"),
            std::string::npos);
}

// Slurm 24.11.5's sacct --json (data_parser v0.0.42) gives a job cancelled
// before it started "start": 4294967294 (NO_VAL) and an end: not started,
// not a negative run time (seen in the 24.11 GPU lab test).
TEST(TraceReaders, SacctJsonNoValStartIsNotStarted) {
  TraceReport report;
  const auto records = read(
      R"({"jobs":[{"job_id":5,"state":{"current":["CANCELLED"]},"comment":{"job":"pacml:model=vgg16"},)"
      R"("time":{"submission":1796550211,"eligible":0,"start":4294967294,"end":1796550212,)"
      R"("elapsed":0,"limit":{"set":false,"infinite":false,"number":0}}},)"
      R"({"job_id":6,"state":{"current":["COMPLETED"]},"comment":{"job":"pacml:model=vgg16"},)"
      R"("time":{"submission":1796550212,"start":1796550213,"end":1796550215,"elapsed":2}}]})",
      TraceFormat::kSacct, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(std::isnan(records[0].duration));
  EXPECT_EQ(records[1].duration, 2);
}

TEST(TraceReaders, SacctParsable2) {
  TraceReport report;
  const auto records = read(
      "JobID|Submit|Eligible|Start|End|NNodes|NCPUS|AllocTRES|ReqTRES|Timelimit|State|Comment\n"
      "46|2026-11-29T23:05:01|2026-11-29T23:05:00|2026-11-29T23:05:01|2026-11-29T23:05:02|2|2|||5|"
      "COMPLETED|"
      "pacml:model=vgg16,beta=0.4\n"
      "46.batch|2026-11-29T23:05:01||2026-11-29T23:05:01|2026-11-29T23:05:02|1|1|||||\n"
      "47|2026-11-29T23:06:00||Unknown|Unknown|1|1||gres/gpu=4|UNLIMITED|PENDING|\n",
      TraceFormat::kSacct, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].model, "vgg16");
  EXPECT_DOUBLE_EQ(records[0].beta, 0.4);
  EXPECT_EQ(records[0].duration, 1);
  EXPECT_EQ(records[0].time_limit, 300);
  EXPECT_EQ(records[0].gpus, 2);
  EXPECT_EQ(records[1].gpus, 4);
  EXPECT_TRUE(std::isnan(records[1].duration));
  EXPECT_EQ(records[1].submit - records[0].submit, 59);
  EXPECT_EQ(report.skipped_by_reason["job step (not a job)"], 1);
  EXPECT_NE(error_of("JobID|Bogus\n", TraceFormat::kSacct).find("unknown column 'Bogus'"),
            std::string::npos);
  EXPECT_NE(error_of("JobID|Submit|NNodes\n1|yesterday|1\n", TraceFormat::kSacct).find("t.csv:2"),
            std::string::npos);
  EXPECT_NE(error_of("JobID|Submit|NNodes|Comment\n1|2026-01-01T00:00:00|1|pacml:colour=red\n",
                     TraceFormat::kSacct)
                .find("unknown pacml option 'colour'"),
            std::string::npos);
}

TEST(TraceReaders, SqueueJson) {
  TraceReport report;
  const auto records = read(R"({"jobs": [
      {"job_id": 7, "submit_time": 1000, "start_time": 1010, "end_time": 1070, "node_count": 2,
       "time_limit": 10, "comment": "pacml:model=gnmt,steps=20", "tres_alloc_str": "cpu=2,node=2,gres/gpu=2"},
      {"job_id": 8, "submit_time": {"set": true, "infinite": false, "number": 1100},
       "start_time": {"set": true, "number": 0}, "end_time": {"set": true, "number": 0},
       "node_count": {"set": true, "number": 1}, "time_limit": {"set": false, "infinite": true, "number": 0}}]})",
                            TraceFormat::kSqueueJson, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].model, "gnmt");
  EXPECT_EQ(records[0].steps, 20);
  EXPECT_EQ(records[0].duration, 60);
  EXPECT_EQ(records[0].time_limit, 600);
  EXPECT_EQ(records[1].submit, 1100);
  EXPECT_TRUE(std::isnan(records[1].time_limit));
  EXPECT_NE(error_of("{not json", TraceFormat::kSqueueJson).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"jobs":[{"job_id":1,"submit_time":-3}]})", TraceFormat::kSqueueJson)
                .find("jobs[0]"),
            std::string::npos);
}

TEST(TraceReaders, PacmlDecisionLog) {
  // One squeue-shaped job per line; decisions without a Slurm job id get
  // synthetic ids so that every decision is an arrival of the replay.
  TraceReport report;
  const auto records = read(
      "{\"job_id\": 5, \"submit_time\": 100, \"node_count\": 4, \"time_limit\": 3, "
      "\"comment\": \"pacml:model=gnmt,beta=0.45,steps=50\"}\n"
      "\n"
      "{\"job_id\": null, \"submit_time\": 160, \"comment\": \"pacml:model=resnet50,beta=0.9\"}\n",
      TraceFormat::kPacmlLog, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, "5");
  EXPECT_EQ(records[0].model, "gnmt");
  EXPECT_EQ(records[0].time_limit, 180);
  EXPECT_EQ(records[1].id, "1000000000");
  EXPECT_EQ(records[1].submit, 160);
  EXPECT_EQ(report.lines, 2);
  EXPECT_NE(error_of("{\"job_id\": 1, \"submit_time\": 1}\nnot json\n", TraceFormat::kPacmlLog)
                .find("t.csv:2"),
            std::string::npos);
  EXPECT_NE(error_of("{\"job_id\": 1}\n", TraceFormat::kPacmlLog).find("t.csv:1: no submit_time"),
            std::string::npos);
  EXPECT_EQ(parse_trace_format("pacml-log", "--format"), TraceFormat::kPacmlLog);
}

TEST(TraceReaders, SlurmTimesAndLimits) {
  EXPECT_EQ(slurm::parse_timestamp("1970-01-02T00:00:00", "x"), 86400);
  EXPECT_THROW(slurm::parse_timestamp("2026-13-01T00:00:00", "x"), InputError);
  EXPECT_EQ(slurm::parse_time_limit_seconds("5", "x"), 300);
  EXPECT_EQ(slurm::parse_time_limit_seconds("1-02:00:00", "x"), 93600);
  EXPECT_EQ(slurm::parse_time_limit_seconds("01:00:05", "x"), 3605);
  EXPECT_FALSE(slurm::parse_time_limit_seconds("UNLIMITED", "x"));
}

TEST(TraceReaders, SacctDefaultColumnsAreAccepted) {
  // sacct's own default columns (AllocCPUS, Account, ExitCode, …) are known;
  // the replay needs only JobID and Submit.
  TraceReport report;
  const auto records = read(
      "JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode|Submit\n"
      "46|wrap|main|root|2|COMPLETED|0:0|2026-11-29T23:05:01\n",
      TraceFormat::kSacct, report);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].gpus, 1);
  // without a submit time: a clear error that says which columns to ask for
  const std::string e =
      error_of("JobID|JobName|Partition|Account|AllocCPUS|State|ExitCode\n", TraceFormat::kSacct);
  EXPECT_NE(e.find("t.csv:1: missing column 'Submit'"), std::string::npos) << e;
  EXPECT_NE(e.find("--format=JobID,Submit"), std::string::npos) << e;
  EXPECT_NE(error_of("JobID|Submit|Bogus\n", TraceFormat::kSacct).find("not a column sacct prints"),
            std::string::npos);
}

TEST(TraceReaders, CommentFormsOfThePluginAreRead) {
  // the plugin's comment grammar: deadline (from the submit time), iterations,
  // percent-encoded paths; other words and pacml-decision annotations ignored
  TraceReport report;
  const auto records = read(
      "JobID|Submit|NNodes|Comment\n"
      "1|1970-01-01T00:01:40|1|pacml:model=gnmt,deadline=2:00:00 note\n"
      "2|1970-01-01T00:01:40|1|pacml:graph=/a%20b/g.txt,iterations=300;pacml-decision:degree=4\n",
      TraceFormat::kSacct, report);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].model, "gnmt");
  EXPECT_DOUBLE_EQ(records[0].deadline, 100 + 7200);
  EXPECT_EQ(records[1].model, "/a b/g.txt");
  EXPECT_EQ(records[1].steps, 300);
  EXPECT_NE(error_of("JobID|Submit|Comment\n1|1970-01-01T00:01:40|pacml:deadline=soon\n",
                     TraceFormat::kSacct)
                .find("t.csv:2: "),
            std::string::npos);
  EXPECT_NE(error_of("JobID|Submit|Comment\n1|1970-01-01T00:01:40|pacml:deadline=soon\n",
                     TraceFormat::kSacct)
                .find("'soon' is not Slurm time syntax"),
            std::string::npos);
}

TEST(TraceReaders, PacmlLogUsesItsFieldsAndSkipsJobsSlurmNeverCreated) {
  TraceReport report;
  const auto records = read(
      "{\"job_id\": 7, \"submit_time\": 100, \"model\": \"g\", \"graph\": \"/data/my "
      "graphs/g.txt\", \"beta\": 0.5, \"steps\": 20, \"comment\": \"pacml:graph=/data/my "
      "graphs/g.txt,beta=0.5,steps=20\"}\n"
      "{\"job_id\": null, \"submit_time\": 101, \"model\": \"gnmt\", \"outcome\": "
      "\"not_created\"}\n",
      TraceFormat::kPacmlLog, report);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].model, "/data/my graphs/g.txt");
  EXPECT_DOUBLE_EQ(records[0].beta, 0.5);
  EXPECT_EQ(records[0].steps, 20);
  EXPECT_EQ(report.skipped, 1);
}

TEST(TraceReaders, UnreadableFile) {
  TraceReport report;
  try {
    read_trace_file("/nonexistent/trace.csv", TraceFormat::kElasticFlow, {}, report);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.csv"), std::string::npos);
  }
}

std::shared_ptr<JctEstimator> physical() {
  return std::make_shared<JctEstimator>(RampTopology::parse("4x4x2"), Profile::physical(), 50);
}

TEST(TraceWorkload, MappingRulesBetaAndSteps) {
  TraceReport report;
  auto records = read(std::string(kHeader) +
                          "a,1000,200,resnet50,1150,64,2,100\n"    // β = 150 / (100·2) = 0.75
                          "b,1100,300,inception3,1400,64,1,100\n"  // β = min(1, 300/100) = 1
                          "c,1200,400,bert,1300,64,4,100\n",       // β = 100/400 = 0.25
                      TraceFormat::kElasticFlow, report);
  GraphCatalog catalog;
  auto est = physical();
  TraceMapping m;
  m.time_scale = 2;
  TraceWorkload w(records, m, catalog, *est, BetaSpec::parse("A"), "t");
  ASSERT_EQ(w.jobs().size(), 3u);
  EXPECT_EQ(w.jobs()[0].arrival, 0);
  EXPECT_EQ(w.jobs()[1].arrival, 200);
  EXPECT_DOUBLE_EQ(w.jobs()[0].beta, 0.75);
  EXPECT_DOUBLE_EQ(w.jobs()[1].beta, 1.0);
  EXPECT_DOUBLE_EQ(w.jobs()[2].beta, 0.25);
  EXPECT_EQ(w.jobs()[0].steps, 200);
  EXPECT_EQ(w.jobs()[1].graph->name(), "inception_v3");
  EXPECT_EQ(w.jobs()[2].graph->name(), "bert-base");
  EXPECT_EQ(w.beta_label(), "trace");
  m.beta_rule = "slack";
  m.steps_rule = "fixed";
  TraceWorkload s(records, m, catalog, *est, BetaSpec::parse("A"), "t");
  EXPECT_DOUBLE_EQ(s.jobs()[0].beta, 1.0);
  EXPECT_EQ(s.jobs()[0].steps, 50);
}

TEST(TraceWorkload, UnknownModelsRejectSkipOrMap) {
  TraceReport report;
  auto records =
      read(std::string(kHeader) + "a,1,10,resnet50,9,64,1,5\nb,2,10,llama-70b,9,64,1,5\n",
           TraceFormat::kElasticFlow, report);
  GraphCatalog catalog;
  auto est = physical();
  TraceMapping m;
  try {
    TraceWorkload w(records, m, catalog, *est, BetaSpec::parse("A"), "t");
    FAIL() << "unknown model accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:3: unknown model 'llama-70b'"), std::string::npos)
        << e.what();
  }
  m.unknown_model = "skip";
  TraceWorkload skip(records, m, catalog, *est, BetaSpec::parse("A"), "t");
  EXPECT_EQ(skip.jobs().size(), 1u);
  EXPECT_EQ(skip.report().skipped, 1);
  EXPECT_EQ(skip.report().skipped_by_reason.at("unknown model 'llama-70b'"), 1);
  m.unknown_model = "gpt2";
  TraceWorkload mapped(records, m, catalog, *est, BetaSpec::parse("A"), "t");
  EXPECT_EQ(mapped.jobs().size(), 2u);
  EXPECT_EQ(mapped.jobs()[1].graph->name(), "gpt2");
  m.unknown_model = "reject";
  m.model_map["llama-70b"] = "gpt2-medium";
  TraceWorkload map(records, m, catalog, *est, BetaSpec::parse("A"), "t");
  EXPECT_EQ(map.jobs()[1].graph->name(), "gpt2-medium");
}

std::string unpack_elasticflow() {
  const std::string archive =
      pacml::testing::shared_data_dir() + "/elasticflow/elasticflow-traces.tar.gz";
  if (!pacml::testing::file_exists(archive)) return "";
  const std::string dir =
      (std::filesystem::temp_directory_path() / "pacml-sim-test-elasticflow").string();
  std::filesystem::create_directories(dir);
  const std::string cmd = "tar -xzf '" + archive + "' -C '" + dir +
                          "' cluster10.csv 2>/dev/null || tar -xzf '" + archive + "' -C '" + dir +
                          "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return dir + "/cluster10.csv";
}

TEST(TraceReplay, ElasticFlowClusterEndToEnd) {
  const std::string path = unpack_elasticflow();
  if (path.empty() || !pacml::testing::file_exists(path))
    GTEST_SKIP()
        << "shared data absent: elasticflow/elasticflow-traces.tar.gz (set PACML_SHARED_DATA)";
  TraceReport report;
  auto records = read_trace_file(path, TraceFormat::kElasticFlow, {}, report);
  EXPECT_EQ(report.skipped, 0);
  EXPECT_EQ(records.size(), 260u);  // 260 data lines after the header
  GraphCatalog catalog;
  auto est = physical();
  TraceMapping m;
  auto workload =
      std::make_shared<TraceWorkload>(records, m, catalog, *est, BetaSpec::parse("A"), path);
  EXPECT_EQ(workload->report().jobs, 260);
  EXPECT_EQ(workload->report().skipped, 0);
  EnvironmentConfig c;
  c.estimator = est;
  c.workload = workload;
  c.horizon = kInfiniteHorizon;
  Environment env(c);
  PolicyPtr p = make_policy("min_feasible");
  const EpisodeResult r = run_episode(env, *p, 0);
  EXPECT_EQ(r.stats.arrived, 260);
  EXPECT_EQ(r.stats.decisions, 260);
  EXPECT_EQ(r.stats.completed + r.stats.blocked, 260);
  EXPECT_EQ(r.stats.running_at_horizon, 0);
  EXPECT_GT(r.stats.completed, 0);
}

TEST(TraceReplay, SwfLogEndToEnd) {
  const std::string path = pacml::testing::shared_data_dir() + "/swf/NASA-iPSC-1993-3.1-cln.swf.gz";
  PACML_REQUIRE_FILE(path);
  TraceReport report;
  auto records = read_trace_file(path, TraceFormat::kSwf, {}, report);
  EXPECT_EQ(records.size(), 18239u);
  EXPECT_EQ(report.skipped, 0);
  GraphCatalog catalog;
  auto est = physical();
  TraceMapping m;
  m.models = {"resnet50", "vgg16", "bert-base", "gnmt"};
  m.gpu_scale = 1.0 / 8;  // a 128-node machine's jobs on a 32-server cluster
  m.max_jobs = 3000;
  auto workload =
      std::make_shared<TraceWorkload>(records, m, catalog, *est, BetaSpec::parse("C"), path);
  EXPECT_EQ(workload->report().jobs, 3000);
  EXPECT_EQ(workload->report().beta_fallback, 3000);  // the log has no requested times
  EXPECT_EQ(workload->beta_label(), "trace+C");
  EnvironmentConfig c;
  c.estimator = est;
  c.workload = workload;
  c.horizon = kInfiniteHorizon;
  Environment env(c);
  PolicyPtr p = make_policy("para_min");
  const EpisodeResult r = run_episode(env, *p, 1);
  EXPECT_EQ(r.stats.arrived, 3000);
  EXPECT_EQ(r.stats.completed + r.stats.blocked, 3000);
}

}  // namespace
}  // namespace pacml::sim
