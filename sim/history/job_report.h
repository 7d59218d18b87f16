// What a job measured itself (doc/PHYSICAL.md §11.1): a job that wants its
// own step time to count runs `pacml-report-steps STEPS SECONDS` (its path
// is in $PACML_STEP_REPORT), which appends to the job's Slurm Comment
//
//     pacml-measured:steps=STEPS,step_time=SECONDS
//
// (replacing its earlier report; the user's words and the request that
// job_submit wrote there for replays stay, and, unlike pacml: words, this
// one is no request: slurm_syntax.h's comment grammar skips it).
// Accounting keeps the Comment (AccountingStoreFlags=job_comment), so the
// report reaches `sacct` with the job's state and elapsed time, and only the
// job's owner (or an admin) can have written it: Slurm lets no other user
// update a job. The history's readers take it from sacct's Comment; a
// measured step time is used even for a job that timed out or was
// cancelled, whose elapsed time alone says nothing about its steps.
#pragma once

#include <string_view>

namespace pacml::sim {

inline constexpr std::string_view kMeasuredTag = "pacml-measured:";

struct MeasuredSteps {
  long steps = 0;        // steps the job timed
  double step_time = 0;  // their mean, seconds
};

enum class JobReport { none, valid, malformed };

// Looks for the report in a job's Comment (the last one counts: a job may
// report as it goes). `malformed`: the tag is there but its fields are not
// steps in [1, 1e12] and a step time in (0, 1e6] seconds; `out` is left
// unchanged then.
JobReport parse_job_report(std::string_view comment, MeasuredSteps& out);

struct AccountingEntry;
struct HistoryReport;
// The report in `comment` into `job` (measured_steps, measured_step_time);
// a malformed one is counted in `report` and the job keeps only its
// accounting: a user's text never stops the admin's join.
void take_job_report(std::string_view comment, AccountingEntry& job, HistoryReport& report);

}  // namespace pacml::sim
