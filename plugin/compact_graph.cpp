#include "plugin/compact_graph.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "core/graph/native_graph.h"
#include "core/util/error.h"
#include "core/util/hash.h"

namespace pacml::plugin {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-';
}

std::string digest_text(const std::string& payload) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(payload)));
  return hex;
}

// The model's name as the frame carries it: other characters become '_'.
std::string frame_name(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, kMaxCompactName)) out += name_char(c) ? c : '_';
  return out.empty() ? "graph" : out;
}

[[noreturn]] void bad(const std::string& reason, long at = -1) {
  throw InputError(at < 0 ? std::string(kGraphDataVar)
                          : std::string(kGraphDataVar) + ": byte " + std::to_string(at),
                   reason + " (the graph the SPANK plugin sends: plugin/compact_graph.h)");
}

// Splits the header "MAGIC BYTES DIGEST NAME" into its four fields.
std::vector<std::string> header_fields(const std::string& header) {
  std::vector<std::string> fields;
  size_t at = 0;
  while (fields.size() < 4) {
    const size_t end = fields.size() == 3 ? header.size() : header.find(' ', at);
    if (end == std::string::npos) break;
    fields.push_back(header.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() != 4)
    bad("the header must be '" + std::string(kCompactMagic) + " BYTES DIGEST NAME'");
  return fields;
}

// Printable ASCII, tabs and newlines only; node and edge lines counted
// against the limits before anything is parsed.
void check_payload(const std::string& payload, size_t offset, const GraphLimits& limits) {
  long nodes = 0, edges = 0;
  bool line_start = true;
  for (size_t i = 0; i < payload.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(payload[i]);
    if (c != '\n' && c != '\t' && (c < 0x20 || c > 0x7e))
      bad("not printable ASCII", static_cast<long>(offset + i));
    if (line_start && c != '\n') (c == '\t' ? edges : nodes) += 1;
    line_start = c == '\n';
  }
  if (nodes > limits.max_ops)
    bad(std::to_string(nodes) + " layers, more than the site's limit of " +
        std::to_string(limits.max_ops) + " (max_graph_ops)");
  if (edges > limits.max_edges)
    bad(std::to_string(edges) + " edges, more than the site's limit of " +
        std::to_string(limits.max_edges) + " (max_graph_edges)");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> compact_graph_variables(const std::string& form) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t at = 0; at < form.size(); at += kGraphDataPiece)
    out.emplace_back(std::string(kGraphDataVar) + "_" + std::to_string(out.size()),
                     form.substr(at, kGraphDataPiece));
  return out;
}

long compact_graph_piece(const std::string& name) {
  const std::string prefix = std::string(kGraphDataVar) + "_";
  if (name.rfind(prefix, 0) != 0) return -1;
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 3 ||
      digits.find_first_not_of("0123456789") != std::string::npos ||
      (digits.size() > 1 && digits[0] == '0'))
    return -1;
  const long n = std::stol(digits);
  return n < static_cast<long>(kMaxGraphDataPieces) ? n : -1;
}

std::string encode_compact_graph(const LayerGraph& graph) {
  LayerGraph plain = graph;
  for (Layer& l : plain.layers) l.label = "op";  // no free text of the user's
  std::ostringstream out;
  write_pipedream_graph(plain, out);
  const std::string payload = out.str();
  return std::string(kCompactMagic) + " " + std::to_string(payload.size()) + " " +
         digest_text(payload) + " " + frame_name(graph.model_name) + "\n" + payload;
}

CompactGraph decode_compact_graph(const std::string& value, const GraphLimits& limits) {
  if (value.size() > static_cast<size_t>(limits.max_bytes) + kMaxCompactHeader)
    bad(std::to_string(value.size()) + " bytes, larger than the site's limit of " +
        std::to_string(limits.max_bytes) + " bytes (max_graph_bytes)");
  const size_t eol = value.find('\n');
  if (eol == std::string::npos || eol > kMaxCompactHeader) bad("no header line");
  const std::vector<std::string> f = header_fields(value.substr(0, eol));
  if (f[0] != kCompactMagic)
    bad("not a compact graph of this version ('" + std::string(kCompactMagic) + "' expected)", 0);
  CompactGraph out;
  out.payload = value.substr(eol + 1);
  const std::string& bytes = f[1];
  if (bytes.empty() || bytes.size() > 9 ||
      bytes.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(bytes) != out.payload.size())
    bad("the header's size is not the payload's " + std::to_string(out.payload.size()) + " bytes");
  if (f[2].size() != 16 || f[2].find_first_not_of("0123456789abcdef") != std::string::npos)
    bad("the header's digest is not 16 hex digits");
  if (f[3].empty() || f[3].size() > kMaxCompactName)
    bad("the header's name must have 1 to " + std::to_string(kMaxCompactName) + " characters");
  for (size_t i = 0; i < f[3].size(); ++i)
    if (!name_char(f[3][i])) bad("the name may hold only A-Z a-z 0-9 . _ + -");
  out.name = f[3];
  if (static_cast<long>(out.payload.size()) > limits.max_bytes)
    bad("larger than the site's limit of " + std::to_string(limits.max_bytes) +
        " bytes (max_graph_bytes)");
  check_payload(out.payload, eol + 1, limits);
  if (digest_text(out.payload) != f[2]) bad("the digest does not match the payload");
  return out;
}

LayerGraph parse_compact_graph(const std::string& value, const std::string& path,
                               const GraphLimits& limits) {
  CompactGraph c = decode_compact_graph(value, limits);
  LayerGraph g = parse_graph_text(c.payload, path, false, limits);
  g.model_name = c.name;
  return g;
}

}  // namespace pacml::plugin
