#include "sim/engine/episode_fields.h"

namespace pacml::sim {

const std::vector<EpisodeField>& episode_fields() {
  using S = EpisodeStats;
  static const std::vector<EpisodeField> fields = {
      {"policy", &S::policy},
      {"beta_dist", &S::beta_dist},
      {"seed", &S::seed},
      {"arrived", &S::arrived},
      {"decisions", &S::decisions},
      {"accepted", &S::accepted},
      {"completed", &S::completed},
      {"blocked", &S::blocked},
      {"blocked_declined", &S::declined},
      {"blocked_no_placement", &S::no_placement},
      {"blocked_deadline", &S::deadline},
      {"blocked_running_at_horizon", &S::running_at_horizon},
      {"undecided", &S::undecided},
      {"blocking_rate", &S::blocking_rate},
      {"acceptance_rate", &S::acceptance_rate},
      {"throughput", &S::throughput},
      {"end_time", &S::end_time},
      {"mean_occupancy", &S::mean_occupancy},
      {"mean_jct", &S::mean_jct},
      {"median_jct", &S::median_jct},
      {"mean_speedup", &S::mean_speedup},
      {"mean_servers", &S::mean_servers},
      {"gpu_hours", &S::gpu_hours, /*in_csv=*/false, /*required_in_json=*/false},
      {"lookaheads", &S::lookaheads, true, false},
      {"cache_hits", &S::cache_hits, true, false},
  };
  return fields;
}

}  // namespace pacml::sim
