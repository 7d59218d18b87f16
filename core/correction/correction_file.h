// The correction file (doc/PHYSICAL.md §11): what `pacml calibrate
// --history` writes and `correction:` in an experiment file (later
// pacml.conf) reads. Its keys are declared once, in correction_settings()
// and correction_entry_settings(); `pacml config keys correction` prints them.
//
//   pacml_correction: 1
//   version: site-2026-12-05          # named in reports and decision logs
//   fitted_from: 412 completed jobs of decisions.log joined with sacct.txt
//   prior_jobs: 8                     # the shrinkage's k: weight n / (n + k)
//   entries:
//     - {model: resnet50, device: A100-SXM4-80GB, compute: 1.62, comm: 1.80, jobs: 37}
//     - {model: "*", device: "*", compute: 1.7, comm: 1.7, jobs: 412}
#pragma once

#include <istream>
#include <string>

#include "core/config/settings_table.h"
#include "core/correction/step_correction.h"

namespace pacml {

const SettingsTable& correction_settings();
const SettingsTable& correction_entry_settings();

// What a fit adds to the file besides its factors, for people.
struct CorrectionProvenance {
  std::string fitted_from;
  double prior_jobs = 0;
};

// Parses a correction file; every error is an InputError at "source:line"
// (unknown keys, factors outside their range, an entry given twice).
StepCorrection read_correction(std::istream& in, const std::string& source);
StepCorrection read_correction_file(const std::string& path);

// The file's text, read back by read_correction to the same factors (the
// numbers are written exactly).
std::string correction_file_text(const StepCorrection& correction,
                                 const CorrectionProvenance& provenance);

}  // namespace pacml
