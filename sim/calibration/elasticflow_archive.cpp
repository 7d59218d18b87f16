#include "sim/calibration/elasticflow_archive.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/util/error.h"
#include "core/util/text.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

std::vector<std::string> csv_files(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> handle(opendir(dir.c_str()), closedir);
  if (!handle) return {};
  std::vector<std::string> files;
  while (const dirent* entry = readdir(handle.get())) {
    const std::string name = entry->d_name;
    if (ends_with(name, ".csv")) files.push_back(dir + "/" + name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

void append(std::vector<TraceRecord>& out, const std::string& csv, long* skipped) {
  TraceReadOptions options;
  options.skip_bad = true;
  TraceReport report;
  for (TraceRecord& r : read_trace_file(csv, TraceFormat::kElasticFlow, options, report))
    out.push_back(std::move(r));
  if (skipped) *skipped += report.skipped;
}

// Unpacks the archive into a fresh temporary directory, reads it, removes it.
std::vector<TraceRecord> read_archive(const std::string& archive, long* skipped) {
  char dir_template[] = "/tmp/pacml-elasticflow-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) throw InputError(archive, "cannot make a temporary directory to unpack it");
  const std::string quoted = shell_quote(dir);
  const std::string command =
      "tar -xzf " + shell_quote(archive) + " -C " + quoted + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  std::vector<TraceRecord> records;
  std::string error;
  if (status != 0) {
    error = "tar could not unpack it (corrupt archive?)";
  } else {
    try {
      for (const std::string& csv : csv_files(dir)) append(records, csv, skipped);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  // A leftover temporary directory is harmless; the records are what matter.
  const std::string cleanup = "rm -rf " + quoted;
  const int removed = std::system(cleanup.c_str());
  (void)removed;
  if (!error.empty()) throw InputError(archive, error);
  return records;
}

}  // namespace

std::vector<TraceRecord> read_elasticflow_traces(const std::string& path, long* skipped) {
  std::vector<TraceRecord> records;
  if (ends_with(path, ".tar.gz") || ends_with(path, ".tgz")) return read_archive(path, skipped);
  const std::vector<std::string> files = csv_files(path);
  if (!files.empty()) {
    for (const std::string& csv : files) append(records, csv, skipped);
    return records;
  }
  if (std::unique_ptr<DIR, int (*)(DIR*)>(opendir(path.c_str()), closedir)) {
    // The shared data's folder holds the archive: what its user means.
    const std::string archive = path + "/elasticflow-traces.tar.gz";
    if (file_exists(archive)) return read_archive(archive, skipped);
    throw InputError(path,
                     "a folder without trace files: give ElasticFlow's .csv traces, a "
                     "folder of them, or elasticflow-traces.tar.gz");
  }
  append(records, path, skipped);
  return records;
}

ElasticFlowTraces find_elasticflow_traces(const std::string& path) {
  ElasticFlowTraces traces;
  std::string where = path;
  if (where.empty()) {
    const char* shared = std::getenv("PACML_SHARED_DATA");
    const std::string relative = "elasticflow/elasticflow-traces.tar.gz";
    where = shared && *shared ? std::string(shared) + "/" + relative
                              : resolve_path("../shared/data/" + relative, ".", "traces");
    if (!file_exists(where)) {
      traces.note = "ElasticFlow traces not found (looked for " + where +
                    "; set PACML_SHARED_DATA or --elasticflow): only the published points are "
                    "compared";
      return traces;
    }
  }
  long skipped = 0;
  traces.records = read_elasticflow_traces(where, &skipped);
  traces.found = true;
  traces.path = where;
  traces.note = "ElasticFlow points from " + where + " (" + std::to_string(traces.records.size()) +
                " jobs" + (skipped ? ", " + std::to_string(skipped) + " bad lines skipped" : "") +
                ")";
  return traces;
}

}  // namespace pacml::sim
