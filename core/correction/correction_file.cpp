#include "core/correction/correction_file.h"

#include <sstream>

#include "core/config/bound_settings.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {

namespace {

using T = SettingType;
// A factor outside this range is far more likely a slip (a percentage, a
// step time) than a site whose stack is 20× slower or faster than predicted.
constexpr double kMinFactor = 0.05, kMaxFactor = 20;

// What a correction file is read into: the factors and, for people, how
// they were fitted.
struct CorrectionFile {
  StepCorrection correction;
  CorrectionProvenance provenance;
};

// One entry of `entries:`.
struct CorrectionEntry {
  std::string model = kAnyName;
  std::string device = kAnyName;
  CorrectionFactor factor;
};

void read_entry(const YAML::Node& e, const std::string& source, StepCorrection& c);

const BoundSettings<CorrectionFile>& correction_keys() {
  static const CorrectionFile d;
  const auto provenance = [](auto member) { return nested(&CorrectionFile::provenance, member); };
  static const BoundSettings<CorrectionFile> keys(
      "correction key",
      {required(bind_with<CorrectionFile>(
           SettingKey("pacml_correction", T::kInteger, "format version: 1 (required)").range(1, 1),
           [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
              CorrectionFile&) { keys.integer(root, source, "pacml_correction"); })),
       bind_with<CorrectionFile>(
           SettingKey("version", T::kText, "the correction's name in reports and decision logs")
               .defaults_to("the file's name"),
           [](const SettingsTable& keys, const YAML::Node& root, const std::string& source,
              CorrectionFile& file) {
             file.correction.version = keys.text(root, source, "version");
           }),
       bind(SettingKey("fitted_from", T::kText, "what it was fitted from, for people"),
            provenance(&CorrectionProvenance::fitted_from), d),
       bind(SettingKey("prior_jobs", T::kNumber,
                       "the fit's prior weight k: a model's factor from n jobs moves n / (n + k) "
                       "of the way from the site-wide one (that one from 1); information only")
                .range(0, 1e6),
            provenance(&CorrectionProvenance::prior_jobs), d),
       bind_with<CorrectionFile>(
           SettingKey("entries", T::kList, "the factors, one entry per (model, device) (required)"),
           [](const SettingsTable&, const YAML::Node& root, const std::string& source,
              CorrectionFile& file) {
             const YAML::Node entries = root["entries"];
             if (!entries.IsSequence() || entries.size() == 0)
               throw InputError(yaml_where(source, entries),
                                "entries must list at least one {model, device, compute, comm}");
             for (const YAML::Node& e : entries) read_entry(e, source, file.correction);
           })});
  return keys;
}

const BoundSettings<CorrectionEntry>& correction_entry_keys() {
  static const CorrectionEntry d;
  const auto factor = [](auto member) { return nested(&CorrectionEntry::factor, member); };
  static const BoundSettings<CorrectionEntry> keys(
      "correction entry key",
      {bind(SettingKey("model", T::kText, "the model as the decision log names it, or * for any"),
            &CorrectionEntry::model, d),
       bind(SettingKey("device", T::kText, "the GPU type (the device's name), or * for any"),
            &CorrectionEntry::device, d),
       required(bind(SettingKey("compute", T::kNumber, "factor on the step's compute (required)")
                         .range(kMinFactor, kMaxFactor),
                     factor(&CorrectionFactor::compute), d)),
       // Read after `compute`, its default.
       bind_with<CorrectionEntry>(
           SettingKey("comm", T::kNumber, "factor on the step's exposed communication")
               .range(kMinFactor, kMaxFactor)
               .defaults_to("compute"),
           [](const SettingsTable& keys, const YAML::Node& e, const std::string& source,
              CorrectionEntry& entry) { entry.factor.comm = keys.number(e, source, "comm"); }),
       bind(SettingKey("jobs", T::kInteger, "completed jobs it was fitted from (0: by hand)")
                .range(0, 1e12),
            factor(&CorrectionFactor::jobs), d)});
  return keys;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void read_entry(const YAML::Node& e, const std::string& source, StepCorrection& c) {
  const BoundSettings<CorrectionEntry>& keys = correction_entry_keys();
  keys.table().check_known(e, source);
  CorrectionEntry entry;
  keys.read(e, source, entry);
  if (entry.model.empty() || entry.device.empty())
    throw InputError(yaml_where(source, e), "model and device must not be empty (use *)");
  if (!e["comm"]) entry.factor.comm = entry.factor.compute;
  if (!c.factors.emplace(std::make_pair(entry.model, entry.device), entry.factor).second)
    throw InputError(yaml_where(source, e),
                     "a second entry for model " + entry.model + " on device " + entry.device);
}

StepCorrection from_yaml(const YAML::Node& root, const std::string& source) {
  const BoundSettings<CorrectionFile>& keys = correction_keys();
  keys.table().check_known(root, source);
  CorrectionFile file;
  file.correction.source = source;
  file.correction.version = base_name(source);
  keys.read(root, source, file);
  if (!root["entries"])
    throw InputError(yaml_where(source, root),
                     "entries must list at least one {model, device, compute, comm}");
  return file.correction;
}

// A YAML scalar that stays text: names such as * or 1e3 are quoted, and a
// control byte (a NUL or a line break in a name taken from a log) is escaped
// as \xHH, so that the file reads back to the same name.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
      continue;
    }
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

const SettingsTable& correction_settings() {
  return correction_keys().table();
}

const SettingsTable& correction_entry_settings() {
  return correction_entry_keys().table();
}

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
