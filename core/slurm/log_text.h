// User text made safe for logs: slurmctld's and slurmd's log lines and the
// JSON decision log. Free of the rest of pacml (no core/ dependencies), so
// that the SPANK plugin links it alone.
#pragma once

#include <string>

namespace pacml::slurm {

// `text` with every byte that is not part of well-formed UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF) written as
// "\xNN"; valid UTF-8 is kept as it is. A JSON writer (nlohmann::json
// throws on invalid UTF-8) can then always write it.
std::string escape_invalid_utf8(const std::string& text);

// `text` safe for one line of slurmctld's log: newlines, carriage returns,
// tabs and other control characters, C0 and C1 (U+0080-U+009F, of which
// U+0085 is a line break to some readers), the line and paragraph
// separators U+2028/U+2029, and bytes that are not UTF-8 become "\n", "\r",
// "\t", "\xNN" (each byte of the character), so user text can never forge a
// log line or break a UTF-8 log reader. Idempotent (backslashes are kept as
// they are).
std::string escape_for_log(const std::string& text);

}  // namespace pacml::slurm
