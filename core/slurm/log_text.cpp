#include "core/slurm/log_text.h"

namespace pacml::slurm {
namespace {

constexpr const char* kHex = "0123456789abcdef";

void append_hex_bytes(std::string& out, const std::string& text, size_t at, size_t count) {
  for (size_t i = at; i < at + count; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

// The length of the well-formed UTF-8 character at text[at] (RFC 3629, section 4's
// table), or 0 if the bytes there are not one.
size_t utf8_length(const std::string& text, size_t at, unsigned& code) {
  const unsigned char c = static_cast<unsigned char>(text[at]);
  size_t n = 0;
  unsigned min = 0;
  if (c < 0x80) return code = c, 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, code = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, code = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, code = c & 0x07, min = 0x10000;
  else
    return 0;
  if (at + n > text.size()) return 0;
  for (size_t i = 1; i < n; ++i) {
    const unsigned char k = static_cast<unsigned char>(text[at + i]);
    if ((k & 0xc0) != 0x80) return 0;
    code = code << 6 | (k & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return n;
}

bool breaks_a_log_line(unsigned code) {
  return code < 0x20 || code == 0x7f || (code >= 0x80 && code <= 0x9f) || code == 0x2028 ||
         code == 0x2029;
}

// Walks text character by character: each byte that does not begin a valid
// UTF-8 character becomes \xHH, and each valid character of n bytes at i is
// handed to write_character(out, i, n, code).
template <typename WriteCharacter>
std::string escape_characters(const std::string& text, WriteCharacter write_character) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned code = 0;
    const size_t n = utf8_length(text, i, code);
    if (n == 0) {
      append_hex_bytes(out, text, i, 1);
      ++i;
      continue;
    }
    write_character(out, i, n, code);
    i += n;
  }
  return out;
}

}  // namespace

std::string escape_invalid_utf8(const std::string& text) {
  return escape_characters(
      text, [&](std::string& out, size_t i, size_t n, unsigned) { out.append(text, i, n); });
}

std::string escape_for_log(const std::string& text) {
  return escape_characters(text, [&](std::string& out, size_t i, size_t n, unsigned code) {
    if (code == '\n')
      out += "\\n";
    else if (code == '\r')
      out += "\\r";
    else if (code == '\t')
      out += "\\t";
    else if (breaks_a_log_line(code))
      append_hex_bytes(out, text, i, n);
    else
      out.append(text, i, n);
  });
}

}  // namespace pacml::slurm
