// sim/history/history_records.h: the decision log and sacct -P read and
// joined, the joined CSV read back, and bad lines named at file:line.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/util/error.h"
#include "sim/history/history_records.h"

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

}  // namespace
}  // namespace pacml::sim
