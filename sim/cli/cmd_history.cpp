// `pacml history join|simulate`: the record of prediction and outcome
// (job_submit/pacml's decision log joined with sacct) and the loop that
// learns from it, shown in the simulator (doc/PHYSICAL.md §11).
#include <iostream>

#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/cli/command.h"
#include "sim/cli/history_calibrate.h"
#include "sim/cli/history_simulate.h"
#include "sim/report/csv.h"

namespace pacml::cli {
namespace {

int join(const std::vector<std::string>& argv) {
  Args args(
      "pacml history join --log DECISIONS --sacct FILE [--out JOINED.csv]",
      "Lines up job_submit/pacml's decisions (their predicted step time, model, batch,\n"
      "precision, GPUs, strategy and steps) with what Slurm's accounting says each job\n"
      "did (state, elapsed, start). Prints what could not be joined and why (to\n"
      "stderr), and the joined jobs as CSV (stdout, or --out), which `pacml calibrate\n"
      "--history` reads. The accounting: sacct -P --format=JobID,State,Elapsed,Start,Comment\n"
      "(other columns are ignored) or sacct --json (Slurm 22.05 to 24.11: jobs[]'s\n"
      "job_id, state.current, time.elapsed and time.start), told apart by the first\n"
      "character ('{': JSON).");
  std::optional<std::string> log, sacct, out;
  args.bind("log", "DECISIONS", "job_submit/pacml's decision log (required)", log);
  args.bind("sacct", "FILE",
            "sacct -P output with JobID, State and Elapsed, or sacct --json (required)", sacct);
  args.bind("out", "JOINED.csv", "write the joined jobs there instead of stdout", out);
  if (!args.parse(argv)) return 0;
  if (!log) throw InputError("--log", "give the decision log");
  if (!sacct) throw InputError("--sacct", "give the sacct -P or --json output");
  const std::string csv = sim::joined_csv_text(join_files(*log, *sacct));
  if (out)
    sim::write_text_file(*out, csv);
  else
    std::cout << csv;
  return 0;
}

int history_command(const std::vector<std::string>& argv) {
  static const VerbTable verbs = {
      {"join", {join, "line decisions up with sacct's record of what ran"}},
      {"simulate", {history_simulate, "the correction loop in the simulator, three replays"}},
  };
  return run_verb("history", "Predictions that learn from what ran.", verbs, argv);
}

}  // namespace

PACML_COMMAND("history",
              "join decisions with sacct; simulate a correction learnt from completed jobs",
              history_command);

}  // namespace pacml::cli
