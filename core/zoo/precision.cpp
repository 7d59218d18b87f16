#include "core/zoo/precision.h"

#include "core/util/error.h"

namespace pacml {

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
  }
  return "?";
}

int bytes_per_element(Precision precision) {
  return precision == Precision::kFp32 ? 4 : 2;
}

Precision parse_precision(const std::string& text) {
  if (text == "fp32" || text == "float32") return Precision::kFp32;
  if (text == "fp16" || text == "float16") return Precision::kFp16;
  if (text == "bf16" || text == "bfloat16") return Precision::kBf16;
  throw InputError("--precision", "unknown precision '" + text + "'; known: fp32, fp16, bf16");
}

}  // namespace pacml
