// Slurm's time syntax for --pacml-deadline and pacml.conf durations.
#pragma once

#include <string>

namespace pacml::plugin {

// A duration in Slurm's --time syntax: "MM", "MM:SS", "HH:MM:SS", "D-HH",
// "D-HH:MM", "D-HH:MM:SS"; plus "90s", "15min", "2h", "1d" style suffixes.
// Returns seconds. Throws InputError(where, ...) for anything else, and for
// negative values ("negative deadline" messages name `what`).
double parse_slurm_duration_seconds(const std::string& text, const std::string& where,
                                    const std::string& what);

// A deadline: either a duration from now (the syntax above) or an absolute
// time as Slurm's --deadline/--begin take it: "YYYY-MM-DD[THH:MM[:SS]]"
// (local time) or "now+N[seconds|minutes|hours|days|weeks]". Returns the
// seconds left from `now` (epoch seconds); throws InputError when the
// deadline is negative, zero or already past.
double parse_deadline_seconds(const std::string& text, double now, const std::string& where);

}  // namespace pacml::plugin
