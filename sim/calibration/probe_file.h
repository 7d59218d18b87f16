// What contrib/probe/pacml-probe measured on one GPU (doc/PHYSICAL.md, "The
// probe"): a CSV whose '#' lines carry the run's facts and whose rows are the
// GPU's matrix-product rates, its copy bandwidth, the host's cost per op, and
// training steps of zoo configurations with their peak memory.
//
//   # pacml_probe: 1
//   # device: NVIDIA H200
//   kind,model,batch,seq_len,image_size,layers,precision,attention,checkpointing,
//   optimizer,builder,seconds,peak_bytes,rate,status
//   matmul,,8192,,,,bf16,,,,,0.00142,,7.74e14,ok
//   step,gpt2,8,1024,,,bf16,sdpa,no,adamw,transformers,0.081,9.6e9,,ok
//
// Columns may come in any order; every one is required and no other is
// accepted (a misspelt column would otherwise be lost without a word). Every
// error names file:line.
#pragma once

#include <istream>
#include <map>
#include <string>
#include <vector>

#include "core/zoo/precision.h"

namespace pacml::sim {

enum class ProbeKind { kMatmul, kCopy, kHostOp, kStep };
// ok: measured; oom: the step ran out of memory; unsupported: this PyTorch
// or device cannot run it; skipped: the probe's time budget ran out first.
enum class ProbeStatus { kOk, kOom, kUnsupported, kSkipped };

struct ProbeRow {
  long line = 0;  // in the file, for messages
  ProbeKind kind = ProbeKind::kStep;
  ProbeStatus status = ProbeStatus::kOk;
  // Steps: the zoo configuration (0 / empty: the model's default).
  std::string model;
  int batch = 0;  // matmul: the matrix size n; copy: bytes; host_op: ops timed
  int seq_len = 0, image_size = 0, layers = 0;
  Precision precision = Precision::kFp32;
  std::string attention;  // "sdpa", "eager" or "" (CNNs)
  bool checkpointing = false;
  std::string optimizer;   // "adamw" or "sgd"
  std::string builder;     // "torchvision", "transformers" or "plain"
  double seconds = 0;      // matmul, copy: one call; host_op: one op; step: median step
  double peak_bytes = -1;  // steps on a GPU: max_memory_allocated; -1 where not measured
  double rate = 0;         // matmul: FLOP/s; copy: bytes/s
};

struct ProbeRun {
  std::string source;                         // the file, for messages
  std::map<std::string, std::string> header;  // "# key: value" lines
  std::vector<ProbeRow> rows;

  std::string where(const ProbeRow& row) const;  // "file:line"
};

const char* probe_kind_name(ProbeKind kind);
const char* probe_status_name(ProbeStatus status);

// Throws InputError naming file:line for: no `# pacml_probe: 1` line, a
// missing or unknown column, a row of the wrong width, an unknown kind,
// status, precision, attention or optimizer, a measured row without a positive
// time (or rate, where one belongs), sizes out of range, more than
// kMaxProbeRows rows.
ProbeRun read_probe(std::istream& in, const std::string& source);
ProbeRun read_probe_file(const std::string& path);

constexpr long kMaxProbeRows = 100000;

}  // namespace pacml::sim
