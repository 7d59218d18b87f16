#include "plugin/step_correction_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/correction/correction_file.h"
#include "core/util/error.h"
#include "core/util/hash.h"
#include "core/util/yaml_input.h"
#include "plugin/regular_file.h"

namespace pacml::plugin {

namespace {

// The file's bytes, read through the descriptor as regular_file.h reads
// admin files; the limit is this file's own, so the message names it (not
// max_graph_bytes, as describe_file_status would).
std::string read_correction_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, "cannot read: " + describe_file_status(errno, 0));
  std::string data;
  const int status = read_opened_file(fd, kMaxCorrectionBytes, data);
  ::close(fd);
  if (status == kTooLarge)
    throw InputError(path, "cannot read: larger than a correction file's limit of " +
                               std::to_string(kMaxCorrectionBytes) + " bytes");
  if (status != 0) throw InputError(path, "cannot read: " + describe_file_status(status, 0));
  return data;
}

std::string hex16(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::shared_ptr<const SiteCorrection> load_site_correction(const std::string& path) {
  const std::string bytes = read_correction_bytes(path);
  std::istringstream in(bytes);
  auto site = std::make_shared<SiteCorrection>();
  site->correction = read_correction(in, path);
  site->path = path;
  site->digest = hex16(fnv1a64(bytes));
  return site;
}

std::string correction_file_stamp(const std::string& path) {
  if (path.empty()) return "";
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return "missing";
  std::ostringstream stamp;
  stamp << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec << ':' << st.st_size << ':' << st.st_ino;
  return stamp.str();
}

std::string correction_summary(const SiteCorrection* site) {
  if (!site) return "";
  return ", correction " + site->correction.version + " (" + site->path + ", " +
         std::to_string(site->correction.factors.size()) + " entries, digest " + site->digest + ")";
}

std::string correction_path_in(const std::string& conf_path) {
  try {
    const YAML::Node root = YAML::LoadFile(conf_path);
    const YAML::Node path = root.IsMap() ? root["correction"] : YAML::Node();
    return path && path.IsScalar() ? path.Scalar() : "";
  } catch (const std::exception&) {
    return "";  // pacml.conf itself is bad: its own error is what the admin reads
  }
}

CorrectedRunTimes::CorrectedRunTimes(const SiteCorrection* site, DurationModel& durations,
                                     const ParallelJob& job, const std::string& model)
    : site_(site), durations_(&durations), job_(&job) {
  if (site_) factor_ = site_->correction.find(model, durations.cluster().device.name);
}

double CorrectedRunTimes::model_step_time(int gpus) const {
  return durations_->step_time(*job_, gpus);
}

double CorrectedRunTimes::share(int gpus) {
  const auto it = shares_.find(gpus);
  if (it != shares_.end()) return it->second;
  const ParallelPlan plan = durations_->estimator().plan(*job_, gpus, Strategy::kAuto);
  const double s = plan.ok() ? compute_share(plan) : 1.0;
  shares_.emplace(gpus, s);
  return s;
}

double CorrectedRunTimes::step_time(int gpus) {
  const double step = model_step_time(gpus);
  if (!factor_ || !std::isfinite(step)) return step;
  // Equal factors make the split irrelevant: no plan needed (the common
  // site-wide case, and every count a policy scans).
  const double s = factor_->compute == factor_->comm ? 1.0 : share(gpus);
  return corrected_step_time(*factor_, step, s);
}

double CorrectedRunTimes::seconds(long steps, int gpus) {
  return static_cast<double>(steps) * step_time(gpus);
}

void CorrectedRunTimes::log_fields(nlohmann::json& record, int gpus) {
  if (!site_) return;
  record["correction"] = site_->correction.version;
  record["correction_digest"] = site_->digest;
  if (!factor_) {
    record["correction_applied"] = false;
    return;
  }
  record["correction_applied"] = true;
  record["correction_compute"] = factor_->compute;
  record["correction_comm"] = factor_->comm;
  record["corrected_step_time"] = step_time(gpus);
}

}  // namespace pacml::plugin
