#include "sim/cli/world_option.h"

namespace pacml::cli {

World world_from_options(const Args& args) {
  const World world = parse_world(args.get("world"), "--world");
  if (!args.has("profile")) return world;
  return world_of_profile(args.get("profile"),
                          args.has("world") ? std::optional<World>(world) : std::nullopt,
                          "--profile", "--profile", "--world");
}

}  // namespace pacml::cli
