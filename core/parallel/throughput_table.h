// Measured scaling tables (doc/PHYSICAL.md §8): a site's own throughput for
// its common models, which overrides the analytic step time where it has a
// point. The format is ElasticFlow's: a directory with one CSV per model,
// named MODEL.csv, whose header is `global_batch_size,1,2,4,...` (GPU counts)
// and whose rows give iterations per second at that global batch:
//
//   global_batch_size,1,2,4,8
//   64,6.84,11.83,18.31,21.28
//   128,3.65,6.61,11.22,16.52
//
// Every cell must be a positive number: holes, negatives and text are errors
// naming file:line, never silently skipped.
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pacml {

class ThroughputTable {
 public:
  // Reads every *.csv in `dir`; throws InputError naming the file:line at fault.
  static ThroughputTable load_dir(const std::string& dir);
  // One model's CSV from a stream.
  void add_csv(std::istream& in, const std::string& model, const std::string& source);
  // Sets one point (iterations per second).
  void set(const std::string& model, int global_batch, int gpus, double iterations_per_second);

  // Seconds per step, if measured. Model names are matched as written and
  // through the zoo's aliases (bert = bert-base, inception3 = inception_v3).
  std::optional<double> step_time(const std::string& model, int global_batch, int gpus) const;

  bool empty() const { return points_.empty(); }
  std::vector<std::string> models() const;
  // Writes the table of `model` in the same CSV format (GPU counts that some
  // batch lacks are written for no batch: every row must be complete).
  void write_csv(std::ostream& out, const std::string& model) const;
  // The GPU counts every batch of `model` has, in order.
  std::vector<int> complete_gpu_counts(const std::string& model) const;
  const std::map<int, std::map<int, double>>* find(const std::string& model) const;

 private:
  // model -> global batch -> GPUs -> iterations per second
  std::map<std::string, std::map<int, std::map<int, double>>> points_;
};

}  // namespace pacml
