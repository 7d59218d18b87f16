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
    case Precision::kTf32:
      return "tf32";
  }
  return "?";
}

int bytes_per_element(Precision precision) {
  return precision == Precision::kFp32 || precision == Precision::kTf32 ? 4 : 2;
}

Precision parse_precision(const std::string& text) {
  if (text == "fp32" || text == "float32") return Precision::kFp32;
  if (text == "fp16" || text == "float16") return Precision::kFp16;
  if (text == "bf16" || text == "bfloat16") return Precision::kBf16;
  if (text == "tf32" || text == "tensorfloat32") return Precision::kTf32;
  throw InputError("--precision",
                   "unknown precision '" + text + "'; known: fp32, fp16, bf16, tf32");
}

}  // namespace pacml
