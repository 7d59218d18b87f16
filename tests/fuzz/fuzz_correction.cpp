// Correction files (core/correction/correction_file.h): what parses has
// factors in their range; written back, it reads back to the same factors.
#include <sstream>
#include <stdexcept>

#include "core/correction/correction_file.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_correction(const std::string& input) {
  std::istringstream in(input);
  const pacml::StepCorrection c = pacml::read_correction(in, "fuzz.yaml");
  for (const auto& [key, f] : c.factors)
    if (!(f.compute >= 0.05 && f.compute <= 20 && f.comm >= 0.05 && f.comm <= 20))
      throw std::logic_error("accepted a factor outside its range");
  std::istringstream again(pacml::correction_file_text(c, {"fuzz", 1}));
  const pacml::StepCorrection back = pacml::read_correction(again, "again.yaml");
  if (back.factors.size() != c.factors.size()) throw std::logic_error("round trip lost entries");
  for (const auto& [key, f] : c.factors) {
    const pacml::CorrectionFactor& b = back.factors.at(key);
    if (b.compute != f.compute || b.comm != f.comm || b.jobs != f.jobs)
      throw std::logic_error("round trip changed a factor");
  }
}
PACML_FUZZ_TARGET("correction", fuzz_correction);
