#include "sim/calibration/probe_file.h"

#include <array>
#include <fstream>
#include <optional>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"

namespace pacml::sim {
namespace {

// The columns pacml-probe writes (contrib/probe/pacml-probe, COLUMNS).
enum Column {
  kKindColumn,
  kModel,
  kBatch,
  kSeqLen,
  kImageSize,
  kLayers,
  kPrecision,
  kAttention,
  kCheckpointing,
  kOptimizer,
  kBuilder,
  kSeconds,
  kPeakBytes,
  kRate,
  kStatusColumn,
  kNumColumns
};

constexpr std::array<const char*, kNumColumns> kColumnNames = {
    "kind",    "model",     "batch",      "seq_len",       "image_size",
    "layers",  "precision", "attention",  "checkpointing", "optimizer",
    "builder", "seconds",   "peak_bytes", "rate",          "status"};

constexpr std::array<const char*, 4> kKindNames = {"matmul", "copy", "host_op", "step"};
constexpr std::array<const char*, 4> kStatusNames = {"ok", "oom", "unsupported", "skipped"};

// Index of `text` in `names`, or throws naming the column and the choices.
template <size_t N>
int choice(const std::string& text, const std::array<const char*, N>& names,
           const std::string& where, const std::string& column) {
  std::string known;
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) return static_cast<int>(i);
    known += (i ? ", " : "") + std::string(names[i]);
  }
  throw InputError(where, "unknown " + column + " '" + text + "'; known: " + known);
}

// "# key: value" → header[key] = value. Other comment lines are kept out.
void read_header_line(const std::string& line, ProbeRun& run) {
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return;
  const std::string key(trim(std::string_view(line).substr(1, colon - 1)));
  run.header[key] = std::string(trim(std::string_view(line).substr(colon + 1)));
}

// column index → position in the file's rows.
using ColumnOrder = std::array<size_t, kNumColumns>;

ColumnOrder read_columns(const std::string& line, const std::string& where) {
  const std::vector<std::string> names = split_fields(trim(line), ',');
  ColumnOrder order;
  order.fill(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const int column = choice(std::string(trim(names[i])), kColumnNames, where, "column");
    if (order[column] != names.size())
      throw InputError(where, "column '" + names[i] + "' appears twice");
    order[column] = i;
  }
  for (int c = 0; c < kNumColumns; ++c)
    if (order[c] == names.size())
      throw InputError(where, std::string("missing column '") + kColumnNames[c] + "'");
  return order;
}

int optional_size(const std::string& text, long hi, const std::string& where,
                  const std::string& what) {
  return text.empty() ? 0 : static_cast<int>(parse_integer(text, 1, hi, where, what));
}

double positive(const std::string& text, const std::string& where, const std::string& what) {
  const double value = text.empty() ? 0 : parse_non_negative(text, where, what);
  if (!(value > 0))
    throw InputError(where, what + " must be a positive number (got '" + text + "')");
  return value;
}

void read_step_fields(const std::vector<std::string>& f, const ColumnOrder& at,
                      const std::string& where, ProbeRow& row) {
  row.model = f[at[kModel]];
  if (row.model.empty()) throw InputError(where, "a step row needs a model");
  row.batch = static_cast<int>(parse_integer(f[at[kBatch]], 1, 1 << 20, where, "batch"));
  row.seq_len = optional_size(f[at[kSeqLen]], 1 << 20, where, "seq_len");
  row.image_size = optional_size(f[at[kImageSize]], 1 << 16, where, "image_size");
  row.layers = optional_size(f[at[kLayers]], 1 << 12, where, "layers");
  static constexpr std::array<const char*, 3> kAttentionKinds = {"", "sdpa", "eager"};
  row.attention = kAttentionKinds[choice(f[at[kAttention]], kAttentionKinds, where, "attention")];
  static constexpr std::array<const char*, 2> kYesNo = {"no", "yes"};
  row.checkpointing = choice(f[at[kCheckpointing]], kYesNo, where, "checkpointing") == 1;
  static constexpr std::array<const char*, 2> kOptimizers = {"adamw", "sgd"};
  row.optimizer = kOptimizers[choice(f[at[kOptimizer]], kOptimizers, where, "optimizer")];
  row.builder = f[at[kBuilder]];
}

// The values a measured row must carry.
void read_measurement(const std::vector<std::string>& f, const ColumnOrder& at,
                      const std::string& where, ProbeRow& row) {
  row.seconds = positive(f[at[kSeconds]], where, "seconds");
  if (row.kind == ProbeKind::kMatmul || row.kind == ProbeKind::kCopy)
    row.rate = positive(f[at[kRate]], where, "rate");
  if (row.kind == ProbeKind::kStep && !f[at[kPeakBytes]].empty())
    row.peak_bytes = parse_non_negative(f[at[kPeakBytes]], where, "peak_bytes");
}

ProbeRow read_row(const std::string& line, const ColumnOrder& at, const std::string& where) {
  const std::vector<std::string> f = split_fields(trim(line), ',');
  if (f.size() != kNumColumns)
    throw InputError(where, "expected " + std::to_string(kNumColumns) + " fields, found " +
                                std::to_string(f.size()));
  ProbeRow row;
  row.kind = static_cast<ProbeKind>(choice(f[at[kKindColumn]], kKindNames, where, "kind"));
  row.status =
      static_cast<ProbeStatus>(choice(f[at[kStatusColumn]], kStatusNames, where, "status"));
  const bool skipped = row.status == ProbeStatus::kSkipped;
  const std::string& precision = f[at[kPrecision]];
  if (!precision.empty()) {
    try {
      row.precision = parse_precision(precision);
    } catch (const InputError&) {
      throw InputError(where,
                       "unknown precision '" + precision + "'; known: fp32, fp16, bf16, tf32");
    }
  } else if (!skipped && (row.kind == ProbeKind::kMatmul || row.kind == ProbeKind::kStep)) {
    throw InputError(where, std::string("a ") + kKindNames[static_cast<int>(row.kind)] +
                                " row needs a precision");
  }
  if (row.kind == ProbeKind::kStep && !skipped)
    read_step_fields(f, at, where, row);
  else if (row.kind != ProbeKind::kStep)
    row.batch = optional_size(f[at[kBatch]], 1L << 40, where, "batch");
  if (row.status == ProbeStatus::kOk) read_measurement(f, at, where, row);
  return row;
}

}  // namespace

const char* probe_kind_name(ProbeKind kind) {
  return kKindNames[static_cast<int>(kind)];
}
const char* probe_status_name(ProbeStatus status) {
  return kStatusNames[static_cast<int>(status)];
}

std::string ProbeRun::where(const ProbeRow& row) const {
  return file_line(source, row.line);
}

ProbeRun read_probe(std::istream& in, const std::string& source) {
  ProbeRun run;
  run.source = source;
  std::optional<ColumnOrder> columns;
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    const std::string where = file_line(source, number);
    if (trim(line).empty()) continue;
    if (line[0] == '#') {
      if (!columns) read_header_line(line, run);
      continue;
    }
    if (!columns) {
      if (run.header.count("pacml_probe") == 0)
        throw InputError(where, "not a pacml probe file: no '# pacml_probe: 1' line first");
      parse_integer(run.header["pacml_probe"], 1, 1, where, "pacml_probe (format version)");
      columns = read_columns(line, where);
      continue;
    }
    if (static_cast<long>(run.rows.size()) >= kMaxProbeRows)
      throw InputError(where, "more than " + std::to_string(kMaxProbeRows) + " rows");
    run.rows.push_back(read_row(line, *columns, where));
    run.rows.back().line = number;
  }
  if (!columns) throw InputError(source, "no column line: not a pacml probe file");
  return run;
}

ProbeRun read_probe_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the probe file");
  return read_probe(in, path);
}

}  // namespace pacml::sim
