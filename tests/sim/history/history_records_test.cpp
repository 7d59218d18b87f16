// sim/history/history_records.h: the decision log and sacct -P read and
// joined, the joined CSV read back, and bad lines named at file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "sim/history/history_records.h"
#include "sim/history/job_report.h"

namespace pacml::sim {
namespace {

const std::string kFixtures = std::string(PACML_SOURCE_DIR) + "/tests/fixtures/history/";

template <class Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<DecisionEntry> decisions(const std::string& text, HistoryReport& report) {
  std::istringstream in(text);
  return read_decision_log(in, "d.jsonl", report);
}

std::vector<AccountingEntry> accounting(const std::string& text) {
  std::istringstream in(text);
  HistoryReport report;
  return read_sacct_accounting(in, "s.txt", report);
}

TEST(HistoryRecords, TheCommittedFixturesJoinWithTheirReasons) {
  HistoryReport log_report, sacct_report;
  const auto d = read_decision_log_file(kFixtures + "decisions.jsonl", log_report);
  const auto a = read_sacct_accounting_file(kFixtures + "sacct.txt", sacct_report);
  EXPECT_EQ(log_report.skipped.at("rejected (no job ran)"), 1);
  EXPECT_EQ(log_report.skipped.at("Slurm created no job"), 1);
  EXPECT_EQ(sacct_report.skipped.at("job step (not a job)"), 40);
  const JoinResult j = join_history(d, a);
  EXPECT_EQ(j.joined.size(), 40u);
  ASSERT_EQ(j.unjoined.size(), 2u);
  EXPECT_NE(j.unjoined[0].find("decisions.jsonl:43: decision"), std::string::npos);
  EXPECT_NE(j.unjoined[0].find("has no job id"), std::string::npos);
  EXPECT_NE(j.unjoined[1].find("job 4990 is not in the accounting"), std::string::npos);
  EXPECT_EQ(j.accounting_without_decision, 1);
  const JoinedJob& first = j.joined.front();
  EXPECT_EQ(first.decision.model, "resnet50");
  EXPECT_EQ(first.decision.batch, 256);
  EXPECT_EQ(first.outcome.state, "COMPLETED");
  EXPECT_EQ(j.joined[8].outcome.state, "CANCELLED");  // "CANCELLED by 1001"
  // the joined CSV reads back to the same jobs
  std::istringstream csv(joined_csv_text(j.joined));
  const auto back = read_joined_csv(csv, "j.csv");
  ASSERT_EQ(back.size(), j.joined.size());
  EXPECT_EQ(back[3].decision.step_time, j.joined[3].decision.step_time);
  EXPECT_EQ(back[3].outcome.elapsed, j.joined[3].outcome.elapsed);
  EXPECT_EQ(back[3].outcome.start, j.joined[3].outcome.start);
}

TEST(HistoryRecords, MalformedLinesAreNamedAtFileLine) {
  HistoryReport r;
  EXPECT_NE(error_of([&] { decisions("\n{not json\n", r); }).find("d.jsonl:2: not a JSON object"),
            std::string::npos);
  const std::string good =
      R"({"outcome":"placed","decision":"1.a","job_id":7,"model":"gpt2","job_digest":"x",)"
      R"("device":"A100","precision":"fp32","strategy":"data","batch":8,"gpus":2,"steps":10,)"
      R"("step_time":0.5,"compute_share":0.9})";
  EXPECT_EQ(decisions(good + "\n", r).size(), 1u);
  std::string bad_share = good;
  bad_share.replace(bad_share.find("0.9"), 3, "1.9");
  EXPECT_NE(error_of([&] {
              decisions(good + "\n" + bad_share + "\n", r);
            }).find("d.jsonl:2: 'compute_share' is 1.9"),
            std::string::npos);
  std::string no_gpus = good;
  no_gpus.replace(no_gpus.find("\"gpus\":2"), 8, "\"gpus\":\"2\"");
  EXPECT_NE(error_of([&] { decisions(no_gpus, r); }).find("d.jsonl:1: 'gpus' must be a number"),
            std::string::npos);
  const std::string head = "JobID|State|Elapsed\n";
  EXPECT_EQ(accounting(head + "7|COMPLETED|1-01:00:00\n").front().elapsed, 90000);
  EXPECT_NE(error_of([&] {
              accounting(head + "7|COMPLETED|00:10:00\n8|COMPLETED\n");
            }).find("s.txt:3: expected 3"),
            std::string::npos);
  EXPECT_NE(error_of([&] { accounting(head + "7|COMPLETED|ten\n"); }).find("s.txt:2:"),
            std::string::npos);
  EXPECT_NE(error_of([&] { accounting("JobID|Elapsed\n"); }).find("missing column 'State'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { accounting(""); }).find("no header"), std::string::npos);
  std::istringstream csv(
      "job_id,decision,model,job_digest,device,batch,precision,gpus,strategy,steps,"
      "predicted_step_time,compute_share,state,elapsed,start\n"
      "7,1.a,gpt2,x,A100,8,fp32,2,data,10,0.5,0.9,COMPLETED,100,\n"
      "8,1.b,gpt2,x,A100,8,fp32,2,data,10,-0.5,0.9,COMPLETED,100,\n");
  EXPECT_NE(error_of([&] { read_joined_csv(csv, "j.csv"); }).find("j.csv:3: predicted_step_time"),
            std::string::npos);
}

// sacct --json in the shapes of Slurm 22.05 (v0.0.38) and 24.11 (v0.0.41),
// made from sacct.txt's jobs (make_sacct_json.py): the same join, picked by
// the file's first character.
TEST(HistoryRecords, SacctJsonOf2205And2411JoinsLikeSacctP) {
  HistoryReport log_report, p_report;
  const auto d = read_decision_log_file(kFixtures + "decisions.jsonl", log_report);
  const JoinResult p =
      join_history(d, read_sacct_accounting_file(kFixtures + "sacct.txt", p_report));
  for (const char* file : {"sacct-22.05.json", "sacct-24.11.json"}) {
    HistoryReport report;
    const auto a = read_sacct_accounting_file(kFixtures + file, report);
    EXPECT_EQ(report.lines, 42) << file;  // 41 jobs and one cancelled while pending; no steps
    EXPECT_TRUE(std::isnan(a.back().start)) << file;
    const JoinResult j = join_history(d, a);
    ASSERT_EQ(j.joined.size(), p.joined.size()) << file;
    EXPECT_EQ(j.accounting_without_decision, 2) << file;
    for (size_t i = 0; i < j.joined.size(); ++i) {
      EXPECT_EQ(j.joined[i].outcome.job_id, p.joined[i].outcome.job_id) << file;
      EXPECT_EQ(j.joined[i].outcome.state, p.joined[i].outcome.state) << file << " " << i;
      EXPECT_EQ(j.joined[i].outcome.elapsed, p.joined[i].outcome.elapsed) << file << " " << i;
      EXPECT_EQ(j.joined[i].outcome.start, p.joined[i].outcome.start) << file << " " << i;
    }
  }
}

std::string json_error(const std::string& text) {
  return error_of([&] {
    std::istringstream in(text);
    HistoryReport report;
    read_any_sacct_accounting(in, "s.json", report);
  });
}

TEST(HistoryRecords, BadSacctJsonIsNamedByFileAndJsonPath) {
  const std::string ok = R"({"job_id":7,"state":{"current":["COMPLETED"]},"time":{"elapsed":9}})";
  EXPECT_EQ(json_error(R"({"jobs":[)" + ok + "]}"), "");
  EXPECT_NE(json_error(R"({"jobs":[)" + ok +
                       R"(,{"job_id":8,"state":{"current":"FAILED"},)"
                       R"("time":{"elapsed":"ten"}}]})")
                .find("s.json: jobs[1].time.elapsed must be seconds"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"jobs":[{"job_id":7,"time":{"elapsed":9}}]})")
                .find("s.json: jobs[0].state is missing"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"jobs":[{"job_id":-7,"state":{"current":[]},"time":{}}]})")
                .find("jobs[0].job_id must be a positive integer"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"jobs":[{"job_id":7,"state":{"current":[]},"time":{}}]})")
                .find("jobs[0].state.current must be a state name"),
            std::string::npos);
  EXPECT_NE(json_error(R"({"jobs": 3})").find("s.json: expected sacct --json output"),
            std::string::npos);
  EXPECT_NE(json_error("{\"jobs\": [").find("s.json: not sacct --json output"), std::string::npos);
}

// A job's own report (job_report.h) in its Comment: the last one counts, a
// malformed one is counted and the job keeps its accounting.
TEST(HistoryRecords, AJobsOwnReportIsReadFromItsComment) {
  MeasuredSteps m;
  EXPECT_EQ(parse_job_report("", m), JobReport::none);
  EXPECT_EQ(parse_job_report("pacml:model=gpt2", m), JobReport::none);
  ASSERT_EQ(parse_job_report("pacml-measured:steps=500,step_time=0.25", m), JobReport::valid);
  EXPECT_EQ(m.steps, 500);
  EXPECT_DOUBLE_EQ(m.step_time, 0.25);
  ASSERT_EQ(parse_job_report("pacml-measured:steps=1,step_time=9 note "
                             "pacml-measured:steps=40,step_time=2e-1;x",
                             m),
            JobReport::valid);
  EXPECT_EQ(m.steps, 40);
  EXPECT_DOUBLE_EQ(m.step_time, 0.2);
  for (const char* bad :
       {"pacml-measured:steps=", "pacml-measured:steps=10", "pacml-measured:steps=0,step_time=1",
        "pacml-measured:steps=10,step_time=0", "pacml-measured:steps=10,step_time=nan",
        "pacml-measured:steps=10,step_time=1e7", "pacml-measured:steps=-3,step_time=1",
        "pacml-measured:steps=9999999999999,step_time=1", "pacml-measured:steps=10,step_time=1s"}) {
    MeasuredSteps kept = m;
    EXPECT_EQ(parse_job_report(bad, kept), JobReport::malformed) << bad;
    EXPECT_EQ(kept.steps, m.steps) << bad;
  }
  // the request job_submit wrote in the Comment (for replays) is still read
  // with a report appended: pacml-measured: is not a pacml: request word
  slurm::RequestFields request;
  EXPECT_TRUE(slurm::parse_comment("pacml:model=gpt2,steps=10 pacml-measured:steps=5,step_time=1",
                                   request, "--comment"));
  EXPECT_EQ(*request.model, "gpt2");
  // sacct -P: a last Comment column keeps the user's '|'
  HistoryReport report;
  std::istringstream p(
      "JobID|State|Elapsed|Comment\n"
      "7|TIMEOUT|00:10:00|a|b pacml-measured:steps=100,step_time=2.5\n"
      "8|COMPLETED|00:01:40|pacml-measured:steps=ten,step_time=1\n"
      "9|COMPLETED|00:01:40|\n");
  const auto a = read_sacct_accounting(p, "s.txt", report);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].measured_steps, 100);
  EXPECT_DOUBLE_EQ(a[0].measured_step_time, 2.5);
  EXPECT_EQ(a[1].measured_steps, 0);
  EXPECT_EQ(a[2].measured_steps, 0);
  EXPECT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped.begin()->second, 1);
  // sacct --json: comment.job
  std::istringstream j(
      R"({"jobs":[{"job_id":7,"state":{"current":["TIMEOUT"]},"time":{"elapsed":600},)"
      R"("comment":{"job":"pacml-measured:steps=100,step_time=2.5"}}]})");
  const auto aj = read_any_sacct_accounting(j, "s.json", report);
  ASSERT_EQ(aj.size(), 1u);
  EXPECT_EQ(aj[0].measured_steps, 100);
  // 24.11.5's v0.0.42: a job that never started has "start": 4294967294
  std::istringstream never(R"({"jobs":[{"job_id":5,"state":{"current":["CANCELLED"]},)"
                           R"("time":{"elapsed":0,"start":4294967294,"end":1796550212}}]})");
  EXPECT_TRUE(std::isnan(read_any_sacct_accounting(never, "n.json", report)[0].start));
  // the joined CSV carries it and reads back; a file written before
  // reports existed (15 columns) is still read
  JoinedJob job;
  job.decision = {"d:1", "1.a", "7", "gpt2", "x", "A100", "fp32", "data", 8, 2, 100, 0.5, 0.9};
  job.outcome = a[0];
  std::istringstream csv(joined_csv_text({job}));
  const auto back = read_joined_csv(csv, "j.csv");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].outcome.measured_steps, 100);
  EXPECT_DOUBLE_EQ(back[0].outcome.measured_step_time, 2.5);
  std::istringstream old(
      "job_id,decision,model,job_digest,device,batch,precision,gpus,strategy,steps,"
      "predicted_step_time,compute_share,state,elapsed,start\n"
      "7,1.a,gpt2,x,A100,8,fp32,2,data,10,0.5,0.9,COMPLETED,100,\n");
  const auto before = read_joined_csv(old, "old.csv");
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].outcome.measured_steps, 0);
}

}  // namespace
}  // namespace pacml::sim
