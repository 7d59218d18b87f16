// The Slurm syntaxes of core/slurm/slurm_syntax.h, shared by the trace
// readers and the job_submit plugin: times ("2026-11-29T23:05:01"), time
// limits ("D-HH:MM:SS", "UNLIMITED"), deadlines, hostlists and job comments
// ("pacml:model=resnet50,beta=0.4"). One input line is tried as each; a
// comment that parses must read back the same after format_comment, and
// escape_for_log must leave no control character.
#include <cmath>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "sim/trace/trace.h"
#include "tests/fuzz/fuzz_target.h"

namespace slurm = pacml::slurm;

static void check_comment_round_trip(const std::string& input) {
  slurm::RequestFields fields;
  try {
    if (!slurm::parse_comment(input, fields, "comment")) return;
  } catch (const pacml::InputError&) {
    return;
  }
  PACML_FUZZ_CHECK(!fields.beta || (*fields.beta > 0 && *fields.beta <= 1), "beta in (0, 1]");
  PACML_FUZZ_CHECK(!fields.steps || *fields.steps >= 1, "steps >= 1");
  slurm::RequestFields again;
  const std::string text = slurm::format_comment(fields);
  PACML_FUZZ_CHECK(fields.empty() || slurm::parse_comment(text, again, "again"),
                   "a formatted comment parses");
  PACML_FUZZ_CHECK(again.graph == fields.graph && again.model == fields.model &&
                       again.deadline == fields.deadline && again.steps == fields.steps,
                   "a comment reads back the same");
}

static void fuzz_slurm_fields(const std::string& input) {
  try {
    const double t = slurm::parse_timestamp(input, "time");
    PACML_FUZZ_CHECK(std::isfinite(t), "time is finite");
  } catch (const pacml::InputError&) {
  }
  try {
    const auto d = slurm::parse_time_limit_seconds(input, "duration");
    PACML_FUZZ_CHECK(!d || (std::isfinite(*d) && *d >= 0), "duration >= 0 or unlimited");
  } catch (const pacml::InputError&) {
  }
  try {
    const double left = slurm::parse_deadline_seconds(input, 1.8e9, "deadline");
    PACML_FUZZ_CHECK(std::isfinite(left) && left > 0, "a deadline is in the future");
  } catch (const pacml::InputError&) {
  }
  try {
    for (const std::string& n : slurm::expand_hostlist(input, "hostlist"))
      PACML_FUZZ_CHECK(!n.empty(), "no empty node name");
  } catch (const pacml::InputError&) {
  }
  check_comment_round_trip(input);
  for (char c : slurm::escape_for_log(input))
    PACML_FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "no control character");
  pacml::sim::TraceRecord record;
  record.submit = 1.7e9;
  try {
    pacml::sim::apply_pacml_comment(input, record, "comment");
  } catch (const pacml::InputError&) {
  }
  PACML_FUZZ_CHECK(std::isnan(record.beta) || (record.beta > 0 && record.beta <= 1), "beta");
  PACML_FUZZ_CHECK(record.steps == -1 || record.steps >= 1, "steps");
  PACML_FUZZ_CHECK(std::isnan(record.deadline) || record.deadline > record.submit, "deadline");
}
PACML_FUZZ_TARGET("slurm_fields", fuzz_slurm_fields);
