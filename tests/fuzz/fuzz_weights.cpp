// The learned policy's weights file (core/inference/weights_file.h): the
// binary container, then the model built from it (metadata, architecture and
// tensor shapes checked against this build).
#include "core/inference/learned_model.h"
#include "core/inference/weights_file.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_weights(const std::string& input) {
  const pacml::inference::WeightsFile weights = pacml::inference::parse_weights(input, "fuzz.pacw");
  pacml::inference::serialize_weights(weights);
  const pacml::inference::LearnedModel model(weights, "fuzz.pacw");
  (void)model;
}
PACML_FUZZ_TARGET("weights", fuzz_weights);
