#include "core/correction/correction_file.h"

#include <sstream>

#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {

namespace {
using T = SettingType;
// A factor outside this range is far more likely a slip (a percentage, a
// step time) than a site whose stack is 20× slower or faster than predicted.
constexpr double kMinFactor = 0.05, kMaxFactor = 20;
}  // namespace

const SettingsTable& correction_settings() {
  static const SettingsTable table(
      "correction key",
      {SettingKey("pacml_correction", T::kInteger, "format version: 1 (required)").range(1, 1),
       SettingKey("version", T::kText, "the correction's name in reports and decision logs")
           .defaults_to("the file's name"),
       SettingKey("fitted_from", T::kText, "what it was fitted from, for people"),
       SettingKey("prior_jobs", T::kNumber,
                  "the fit's prior weight k: a model's factor from n jobs moves n / (n + k) of "
                  "the way from the site-wide one (that one from 1); information only")
           .range(0, 1e6),
       SettingKey("entries", T::kList, "the factors, one entry per (model, device) (required)")});
  return table;
}

const SettingsTable& correction_entry_settings() {
  static const SettingsTable table(
      "correction entry key",
      {SettingKey("model", T::kText, "the model as the decision log names it, or * for any")
           .defaults_to("*"),
       SettingKey("device", T::kText, "the GPU type (the device's name), or * for any")
           .defaults_to("*"),
       SettingKey("compute", T::kNumber, "factor on the step's compute (required)")
           .range(kMinFactor, kMaxFactor),
       SettingKey("comm", T::kNumber, "factor on the step's exposed communication")
           .range(kMinFactor, kMaxFactor)
           .defaults_to("compute"),
       SettingKey("jobs", T::kInteger, "completed jobs it was fitted from (0: by hand)")
           .range(0, 1e12)
           .defaults_to("0")});
  return table;
}

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void read_entry(const YAML::Node& e, const std::string& source, StepCorrection& c) {
  const SettingsTable& keys = correction_entry_settings();
  keys.check_known(e, source);
  const std::string model = e["model"] ? keys.text(e, source, "model") : kAnyName;
  const std::string device = e["device"] ? keys.text(e, source, "device") : kAnyName;
  if (model.empty() || device.empty())
    throw InputError(yaml_where(source, e), "model and device must not be empty (use *)");
  CorrectionFactor f;
  f.compute = keys.number(e, source, "compute");
  f.comm = e["comm"] ? keys.number(e, source, "comm") : f.compute;
  f.jobs = e["jobs"] ? keys.integer(e, source, "jobs") : 0;
  if (!c.factors.emplace(std::make_pair(model, device), f).second)
    throw InputError(yaml_where(source, e),
                     "a second entry for model " + model + " on device " + device);
}

StepCorrection from_yaml(const YAML::Node& root, const std::string& source) {
  const SettingsTable& keys = correction_settings();
  keys.check_known(root, source);
  keys.integer(root, source, "pacml_correction");
  StepCorrection c;
  c.source = source;
  c.version = root["version"] ? keys.text(root, source, "version") : base_name(source);
  if (root["prior_jobs"]) keys.number(root, source, "prior_jobs");
  if (root["fitted_from"]) keys.text(root, source, "fitted_from");
  const YAML::Node entries = root["entries"];
  if (!entries || !entries.IsSequence() || entries.size() == 0)
    throw InputError(yaml_where(source, entries ? entries : root),
                     "entries must list at least one {model, device, compute, comm}");
  for (const YAML::Node& e : entries) read_entry(e, source, c);
  return c;
}

// A YAML scalar that stays text: names such as * or 1e3 are quoted.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

StepCorrection read_correction(std::istream& in, const std::string& source) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source); });
}

StepCorrection read_correction_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return read_correction(in, path);
}

std::string correction_file_text(const StepCorrection& c, const CorrectionProvenance& p) {
  std::ostringstream out;
  out << "# A site correction of pacml's predicted step times (doc/PHYSICAL.md §11).\n"
      << "pacml_correction: 1\n";
  if (!c.version.empty()) out << "version: " << quoted(c.version) << "\n";
  if (!p.fitted_from.empty()) out << "fitted_from: " << quoted(p.fitted_from) << "\n";
  out << "prior_jobs: " << exact_number_text(p.prior_jobs) << "\nentries:\n";
  for (const auto& [key, f] : c.factors)
    out << "  - {model: " << quoted(key.first) << ", device: " << quoted(key.second)
        << ", compute: " << exact_number_text(f.compute) << ", comm: " << exact_number_text(f.comm)
        << ", jobs: " << f.jobs << "}\n";
  return out.str();
}

}  // namespace pacml
