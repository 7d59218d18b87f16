// Slurm's text syntaxes, in one place for the job_submit plugin (plugin/) and
// the trace readers (sim/trace/): durations and time limits ("1-02:03:04",
// "90", "UNLIMITED"), timestamps ("2026-11-29T23:05:01"), deadlines
// ("now+2hours"), hostlists ("n[1-32]") and the pacml job comment
// ("pacml:model=gnmt,deadline=2:00:00,steps=500"). Bad input is an
// InputError(where, ...) naming the text at fault; nothing here crashes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/slurm/log_text.h"  // escape_for_log, for the readers of this header

namespace pacml::slurm {

// ---- times ------------------------------------------------------------------

// A duration in Slurm's --time syntax: "MM", "MM:SS", "HH:MM:SS", "D-HH",
// "D-HH:MM", "D-HH:MM:SS"; plus "90s", "15min", "2h", "1d" style suffixes.
// Returns seconds. Throws for anything else and for negative values (the
// message names `what`).
double parse_duration_seconds(const std::string& text, const std::string& where,
                              const std::string& what);

// A time limit as squeue/sacct print it: the syntax above, or "UNLIMITED",
// "Partition_Limit", "INVALID" or "" (no limit: nullopt).
std::optional<double> parse_time_limit_seconds(const std::string& text, const std::string& where);

// "2026-11-29T23:05:01" (taken as UTC, as sacct prints it with
// SLURM_TIME_FORMAT unset in the tests) → seconds since the epoch.
double parse_timestamp(const std::string& text, const std::string& where);

// The furthest deadline pacml takes: as far ahead as the longest time limit
// it sets (plugin/engine.cpp, kMaxLimitDays); further ones are refused with a
// message, so epoch seconds and minutes stay far inside the integer types
// Slurm keeps them in (time_t, uint32_t minutes).
constexpr double kMaxDeadlineDays = 365;

// A deadline: a duration from `now` (the syntax above) or an absolute time as
// Slurm's --deadline/--begin take it: "YYYY-MM-DD[THH:MM[:SS]]" (local time)
// or "now+N[seconds|minutes|hours|days|weeks]". Returns the seconds left from
// `now` (epoch seconds); throws when it is negative, zero, already past or
// more than kMaxDeadlineDays away.
double parse_deadline_seconds(const std::string& text, double now, const std::string& where);

// Slurm's time-limit text for whole minutes: "MM", "HH:MM:00", "D-HH:MM:00".
std::string format_minutes(long minutes);

// ---- hostlists ----------------------------------------------------------------

// The most names a hostlist may expand to unless the caller knows a smaller
// bound (the cluster's node count). Slurm's largest clusters have ~10^4
// nodes (Frontier, TOP500 #1 in 2022-24: 9,408 nodes); 2^16 leaves room while
// bounding the names at 64 Ki x kMaxHostNameBytes = 16 MiB.
constexpr std::size_t kMaxHostlistNames = 65536;
// The longest node name: RFC 1035 (section 2.3.4) limits a domain name to 255 octets.
constexpr std::size_t kMaxHostNameBytes = 255;

// How many names a hostlist holds (repeats counted), without expanding it:
// a 439-byte list can name millions. Throws as expand_hostlist does.
std::size_t count_hostlist(const std::string& text, const std::string& where);

// Expands a hostlist into node names in the order written. Accepts comma-
// separated items, each an optional prefix, one bracketed range list
// ("[1-4,7]", zero padding kept: "[01-04]") and an optional suffix. Throws on
// unbalanced brackets, empty names, descending ranges, names longer than
// kMaxHostNameBytes, and (counted before anything is expanded) more than
// `max_names` names.
std::vector<std::string> expand_hostlist(const std::string& text, const std::string& where,
                                         std::size_t max_names = kMaxHostlistNames);

// Joins names with commas (Slurm accepts this wherever a hostlist goes).
std::string join_hostlist(const std::vector<std::string>& names);

// ---- the pacml request: SPANK options and the job comment ---------------------

// What a job tells pacml about itself, as written (deadline unparsed: it
// needs the submit time).
struct RequestFields {
  std::optional<std::string> graph, model, deadline;
  std::optional<long> steps;  // --pacml-steps, or its alias --pacml-iterations
  std::optional<double> beta;
  bool empty() const { return !graph && !model && !deadline && !steps && !beta; }
};

// The keys users write after --pacml- or inside "pacml:".
constexpr const char* kRequestKeys = "graph, model, steps, iterations, deadline, beta";

// Sets one key ("steps", "beta", …) from its text; throws InputError(where,
// ...) for an unknown key, an empty name, β outside (0, 1], steps outside
// [1, 1e9], or steps given twice (steps and iterations).
void set_request_field(RequestFields& fields, const std::string& key, const std::string& value,
                       const std::string& where);

// The "pacml:key=value,…" words of a job comment (other words, and words like
// "pacml-decision:…", are left alone; ';' separates words like a blank).
// Values are percent-decoded ("%20" is a blank, "%2C" a comma) so that graph
// paths with blanks or commas survive. Returns whether any pacml: word was
// there. Throws InputError naming the entry for malformed ones.
bool parse_comment(const std::string& comment, RequestFields& fields, const std::string& where);

// The comment form of `fields` ("pacml:graph=/a%20b/g.txt,beta=0.5,steps=50"),
// which parse_comment reads back exactly.
std::string format_comment(const RequestFields& fields);

}  // namespace pacml::slurm
