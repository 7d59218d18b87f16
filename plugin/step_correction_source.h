// pacml.conf's `correction:` (doc/SLURM.md §11, doc/PHYSICAL.md §11): the
// site's correction of predicted step times, as `pacml calibrate --history`
// writes it, applied to the GPU decision. Read when pacml.conf is (so a bad
// file is named at file:line when the admin loads the configuration, and a
// new file is picked up the way a new pacml.conf is: Engine::refresh_config
// looks at both files' identities on every submission). Kept apart from
// the GPU pipeline (gpu_decision.cpp) so that it only asks "how long,
// corrected".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/correction/step_correction.h"
#include "core/parallel/duration_model.h"

namespace pacml::plugin {

// A correction file's size limit: a fit writes one line per (model, GPU
// type), so a megabyte is tens of thousands of entries; anything larger is a
// mistake, and slurmctld must not parse it.
constexpr long kMaxCorrectionBytes = 1L << 20;

// A loaded correction file and what the decision log names it by.
struct SiteCorrection {
  StepCorrection correction;
  std::string path;
  std::string digest;  // fnv1a64 of the file's bytes, 16 hex digits
};

// Reads `path` (absolute) as the admin's files are read (regular_file.h: a
// regular file only, never a FIFO or a link, at most kMaxCorrectionBytes) and
// parses it (core/correction/correction_file.h). Throws InputError: at
// "path:line" for bad content, at `path` for a file that cannot be read.
std::shared_ptr<const SiteCorrection> load_site_correction(const std::string& path);

// The file's identity (mtime, size, inode) for Engine::refresh_config's
// change check; "missing" when it cannot be stat'ed, "" for no path.
std::string correction_file_stamp(const std::string& path);

// ", correction VERSION (PATH, N entries, digest D)" for slurmctld's "loaded"
// line, so that the admin sees which correction a reload put in force; ""
// for none.
std::string correction_summary(const SiteCorrection* site);

// The `correction:` a pacml.conf names, read leniently ("" when it names
// none or cannot be read): Engine::refresh_config watches that file even
// when the configuration failed to load because of it, so that fixing the
// correction file alone is picked up.
std::string correction_path_in(const std::string& conf_path);

// One decision's run times with the correction applied: the step time the
// physical model (or a measured table) predicts for k GPUs, corrected for
// (model, device) as core/correction/step_correction.h says. Without a
// correction, or with no entry for the job, the model's own.
class CorrectedRunTimes {
 public:
  CorrectedRunTimes() = default;
  CorrectedRunTimes(const SiteCorrection* site, DurationModel& durations, const ParallelJob& job,
                    const std::string& model);

  // Seconds `steps` take on k GPUs, corrected.
  double seconds(long steps, int gpus);
  // The model's seconds per step on k GPUs, uncorrected.
  double model_step_time(int gpus) const;
  // The corrected seconds per step on k GPUs.
  double step_time(int gpus);
  // The factor on a one-GPU run (all compute: no communication to correct).
  double single_gpu_factor() const { return factor_ ? factor_->compute : 1.0; }
  // The correction's fields for the decision log, for the plan chosen with
  // k GPUs: its version and digest, the factors applied, and the corrected
  // step time beside the model's (`step_time` stays the model's, so that a
  // later fit compares accounting with the uncorrected prediction).
  void log_fields(nlohmann::json& record, int gpus);

 private:
  double share(int gpus);
  const SiteCorrection* site_ = nullptr;
  DurationModel* durations_ = nullptr;
  const ParallelJob* job_ = nullptr;
  const CorrectionFactor* factor_ = nullptr;  // null: none applies
  std::map<int, double> shares_;              // by k, planned once per decision
};

}  // namespace pacml::plugin
