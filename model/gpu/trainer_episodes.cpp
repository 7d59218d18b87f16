#include "model/gpu/trainer_episodes.h"

#include <stdexcept>

#include "core/cluster/cluster_spec.h"
#include "core/gpu/features.h"
#include "core/parallel/physical_constants.h"
#include "sim/engine/workload.h"

namespace pacml::gpu {

void GraphTable::add(const ParallelJob& job) {
  if (index.count(job.key())) return;
  index[job.key()] = static_cast<int>(graphs.size());
  graphs.push_back(job_features(job));
}

int GraphTable::of(const ParallelJob* job) const {
  if (!job) throw std::logic_error("GPU trainer: the replay's decision input names no job");
  return index.at(job->key());
}

DurationModel& Setup::durations_of(int worker, int cluster) const {
  auto& slot = durations.at(static_cast<size_t>(worker))[cluster];
  if (!slot) slot = std::make_unique<DurationModel>(estimators.at(cluster));
  return *slot;
}

Policy capped_teacher(double cap) {
  Policy teacher;
  teacher.kind = Policy::Kind::kCapped;
  teacher.name = "teacher";
  teacher.cap = cap;
  return teacher;
}

double replay_met(const Setup& s, const Episode& e, const Policy& policy, int worker,
                  std::uint64_t rng_seed) {
  ReplayConfig config;
  config.policy = policy;
  config.admission = e.scenario.admission;
  config.order = s.order;
  config.seed = rng_seed;
  DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
  return replay_on_gpus(e.jobs, d, config).stats.deadline_met_rate;
}

namespace {

// The grid's episodes on one cluster with one workload.
void add_episodes(const TrainConfig& c, const ScenarioGrid& g, int workload,
                  const std::string& cluster, Setup& s, std::vector<Episode>& out) {
  if (!s.cluster_index.count(cluster)) {
    s.cluster_index[cluster] = static_cast<int>(s.estimators.size());
    s.estimators.push_back(std::make_shared<const PhysicalEstimator>(
        load_cluster(cluster, c.source + ": clusters"), PhysicalConstants::calibrated()));
  }
  const int index = s.cluster_index[cluster];
  const double gpus = s.estimators[index]->cluster().num_gpus();
  for (double load : g.loads)
    for (const std::string& a : g.admissions)
      for (std::uint64_t seed : g.seeds) {
        Episode e;
        e.scenario.workload = workload;
        e.scenario.cluster = cluster;
        e.scenario.cluster_index = index;
        e.scenario.load = load;
        e.scenario.generator_load =
            c.load_reference_gpus > 0 ? load * gpus / c.load_reference_gpus : load;
        e.scenario.admission = parse_admission(a, c.source + ": admissions");
        e.seed = seed;
        out.push_back(std::move(e));
      }
}

std::vector<Episode> make_episodes(const TrainConfig& c, const ScenarioGrid& g, Setup& s) {
  std::vector<Episode> out;
  for (size_t w = 0; w < s.workloads.size(); ++w)
    for (const std::string& cluster : g.clusters)
      add_episodes(c, g, static_cast<int>(w), cluster, s, out);
  return out;
}

double teacher_met(const Setup& s, const Episode& e, double cap, int worker) {
  return replay_met(s, e, capped_teacher(cap), worker, e.seed);
}

// The cap meeting the most deadlines on the episode's jobs (ties: the
// larger), and min_feasible's result for comparison.
void search_cap(const Setup& s, Episode& e, const std::vector<double>& caps, int worker) {
  e.teacher_met = -1;
  for (double cap : caps) {  // ascending
    const double met = teacher_met(s, e, cap, worker);
    if (met >= e.teacher_met) e.teacher_met = met, e.cap = cap;
  }
  e.min_feasible_met =
      replay_met(s, e, Policy::parse("min_feasible", "gpu trainer"), worker, e.seed);
}

void generate(const Setup& s, long jobs, std::vector<Episode>& episodes) {
  parallel_for(episodes.size(), s.workers, [&](size_t i, int worker) {
    Episode& e = episodes[i];
    DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
    e.jobs = generate_jobs(s.workloads.at(static_cast<size_t>(e.scenario.workload)),
                           e.scenario.generator_load, jobs, e.seed, d);
  });
}

}  // namespace

std::unique_ptr<Setup> make_setup(const TrainConfig& c, int workers) {
  auto s = std::make_unique<Setup>();
  for (const std::string& w : c.workloads) s->workloads.push_back(load_workload_named(w));
  s->order = parse_queue_order(c.order, c.source + ": order");
  s->workers = workers;
  s->durations.resize(static_cast<size_t>(workers));
  s->train = make_episodes(c, c.train, *s);
  s->validation = make_episodes(c, c.validation, *s);
  generate(*s, c.train.jobs, s->train);
  generate(*s, c.validation.jobs, s->validation);
  for (const auto* set : {&s->train, &s->validation})
    for (const Episode& e : *set)
      for (const Job& j : e.jobs) s->graphs.add(*j.work);
  for (auto* set : {&s->train, &s->validation})
    parallel_for(set->size(), workers,
                 [&](size_t i, int worker) { search_cap(*s, (*set)[i], c.teacher_caps, worker); });
  return s;
}

}  // namespace pacml::gpu
