// Strict number parsing for user-supplied text, and the one way pacml writes
// a number that must read back exactly (configuration echoes, native graphs,
// settings tables).
//
// std::stod accepts "12abc" and throws bare std::invalid_argument without a
// location; these helpers reject trailing garbage, NaN and infinities and say
// where the bad value came from.
#pragma once

#include <string>
#include <string_view>

namespace pacml {

// Parses a finite double; throws InputError(where, ...) naming `what` otherwise.
double parse_finite_double(std::string_view text, const std::string& where,
                           const std::string& what);

// Parses a non-negative finite double.
double parse_non_negative(std::string_view text, const std::string& where, const std::string& what);

// Parses an integer in [lo, hi].
long parse_integer(std::string_view text, long lo, long hi, const std::string& where,
                   const std::string& what);

// The shortest text that reads back as exactly `value` (0.1 → "0.1",
// 1.6e12 → "1.6e+12"): lossless, yet what a person would have written.
std::string exact_number_text(double value);

// exact_number_text with an exponent that is a multiple of 3, as the docs
// write physical quantities (1.5e-7 → "150e-9": ns, µs, GB); the decimal value
// is the same, so it reads back to the same double.
std::string engineering_number_text(double value);

// `value` with `digits` significant digits, as printf's %g writes it (tables
// for people: 4–6 digits; CSV: 10). Every such number in pacml goes through here.
std::string significant_number_text(double value, int digits = 6);

// Removes leading and trailing blanks (space, tab, CR, LF).
std::string_view trim(std::string_view text);

}  // namespace pacml
