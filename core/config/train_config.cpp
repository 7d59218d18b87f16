#include "core/config/train_config.h"

namespace pacml {

nlohmann::json TrainConfig::to_json() const {
  return {{"name", name},
          {"source", source},
          {"experiment", experiment},
          {"profile", profile},
          {"horizon", horizon},
          {"interarrival", interarrival},
          {"graphs", graphs},
          {"betas", betas},
          {"seed", seed},
          {"time_limit_minutes", time_limit_minutes},
          {"max_updates", max_updates},
          {"episodes_per_update", episodes_per_update},
          {"workers", workers},
          {"gamma", gamma},
          {"lambda", lambda},
          {"reward_scale", reward_scale},
          {"lr_final", lr_final},
          {"warm_start",
           {{"teacher", teacher},
            {"updates", teacher_updates},
            {"smoothing", ppo.imitation_smoothing},
            {"objective", imitate_values ? "values" : "actions"},
            {"temperature", ppo.value_temperature},
            {"dagger_from", dagger_from},
            {"search",
             {{"lookahead", search.lookahead},
              {"samples", search.samples},
              {"margin", search.margin}}}}},
          {"ppo",
           {{"lr", ppo.lr},
            {"clip", ppo.clip},
            {"value_coef", ppo.value_coef},
            {"value_clip", ppo.value_clip},
            {"entropy_coef", ppo.entropy_coef},
            {"grad_clip", ppo.grad_clip},
            {"minibatch", ppo.minibatch},
            {"epochs", ppo.epochs},
            {"normalise_advantages", ppo.normalise_advantages}}},
          {"network", architecture.to_json()},
          {"eval", {{"every", eval_every}, {"seeds", eval_seeds}, {"baselines", eval_baselines}}},
          {"checkpoint_every", checkpoint_every}};
}

}  // namespace pacml
