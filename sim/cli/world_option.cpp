#include "sim/cli/world_option.h"

namespace pacml::cli {

void add_world_options(Args& args, WorldOptions& options, const std::string& world_help) {
  add_world_option(args, options, world_help);
  add_profile_option(args, options);
}

void add_world_option(Args& args, WorldOptions& options, const std::string& world_help) {
  args.bind_parsed(
      "world", "W", world_help, options.world,
      [](const std::string& text, const std::string& where) {
        return std::optional<World>(parse_world(text, where));
      },
      "gpu");
}

void add_profile_option(Args& args, WorldOptions& options) {
  args.bind("profile", "NAME", "the name --world had before: physical = gpu, reference = paper",
            options.profile);
}

World chosen_world(const WorldOptions& options) {
  if (!options.profile) return options.world.value_or(World::kGpu);
  return world_of_profile(*options.profile, options.world, "--profile", "--profile", "--world");
}

}  // namespace pacml::cli
