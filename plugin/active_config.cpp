#include "plugin/active_config.h"

#include "core/policy/policy_factory.h"

namespace pacml::plugin {

// The members are built in declaration order and the first that throws names
// the error logged for a bad file, so the order is part of what admins read.
ActiveConfig::ActiveConfig(PluginConfig c)
    : cfg(std::move(c)),
      topology(cfg.ramp, cfg.source),
      // The paper world runs the paper's simulator as the paper does: the reference profile.
      profile(cfg.world == World::kPaper ? Profile::reference() : Profile::physical()),
      policy(cfg.world == World::kGpu
                 ? nullptr
                 : make_policy(cfg.policy, cfg.source, installed_model_dirs())),
      cache(kLookaheadCacheBytes),
      rng(static_cast<std::uint64_t>(cfg.seed)),
      graph_jobs(kGraphJobCacheBytes) {
  if (cfg.world != World::kGpu) return;
  cluster = gpu_cluster_of(cfg);
  gpu_policy = gpu::Policy::parse(cfg.policy, cfg.source + ": policy", installed_model_dirs());
}

DurationModel& ActiveConfig::durations_for(int nodes, int gpus_per_node) {
  std::unique_ptr<DurationModel>& m = durations[{nodes, gpus_per_node}];
  if (!m) {
    ClusterSpec spec = *cluster;
    spec.gpus_per_server = gpus_per_node;
    if (spec.num_servers() != nodes) spec.ramp.groups = spec.ramp.racks = 1;
    spec.ramp.servers_per_rack = nodes / (spec.ramp.groups * spec.ramp.racks);
    m = std::make_unique<DurationModel>(
        std::make_shared<PhysicalEstimator>(spec, PhysicalConstants::calibrated(), cfg.throughput));
  }
  return *m;
}

}  // namespace pacml::plugin
