#include "sim/workload/synthetic.h"

#include <cmath>
#include <sstream>

#include "core/util/error.h"

namespace pacml::sim {
namespace {

class SyntheticStream : public JobStream {
 public:
  SyntheticStream(const SyntheticOptions& options, std::uint64_t seed)
      : options_(options), rng_(seed), beta_(options.beta, rng_), time_(options.first_arrival) {}

  std::optional<JobSpec> next() override {
    if (options_.max_jobs >= 0 && count_ >= options_.max_jobs) return std::nullopt;
    JobSpec spec;
    spec.arrival = time_;
    spec.graph = options_.graphs[rng_.below(options_.graphs.size())];
    spec.beta = beta_.sample(rng_);
    spec.steps = options_.steps;
    ++count_;
    if (options_.exponential)
      time_ += -options_.interarrival * std::log(1.0 - rng_.uniform());
    else
      time_ += options_.interarrival;
    return spec;
  }

 private:
  const SyntheticOptions& options_;
  Rng rng_;
  BetaSampler beta_;
  double time_;
  long count_ = 0;
};

}  // namespace

SyntheticWorkload::SyntheticWorkload(SyntheticOptions options) : options_(std::move(options)) {
  if (options_.graphs.empty()) throw InputError("workload", "no graphs to draw jobs from");
  for (const JobGraphPtr& g : options_.graphs)
    if (!g) throw InputError("workload", "a graph is missing");
  if (!(options_.interarrival > 0) || !std::isfinite(options_.interarrival))
    throw InputError("workload.interarrival", "must be a positive number");
  if (!(options_.first_arrival >= 0) || !std::isfinite(options_.first_arrival))
    throw InputError("workload.first_arrival", "must be a non-negative number");
  if (options_.steps < 1) throw InputError("steps", "training steps must be at least 1");
}

std::unique_ptr<JobStream> SyntheticWorkload::start(std::uint64_t seed) const {
  return std::make_unique<SyntheticStream>(options_, seed);
}

std::string SyntheticWorkload::describe() const {
  std::ostringstream out;
  out << "synthetic: " << options_.graphs.size() << " graphs (";
  for (size_t i = 0; i < options_.graphs.size(); ++i)
    out << (i ? ", " : "") << options_.graphs[i]->name();
  out << "), beta " << options_.beta.label() << ", "
      << (options_.exponential ? "exponential" : "fixed") << " interarrival "
      << options_.interarrival << ", N = " << options_.steps;
  if (options_.max_jobs >= 0) out << ", at most " << options_.max_jobs << " jobs";
  return out.str();
}

}  // namespace pacml::sim
