#include "sim/cli/world_option.h"

#include "core/profile.h"
#include "core/util/error.h"

namespace pacml::cli {

World world_from_options(const Args& args) {
  World world = parse_world(args.get("world"), "--world");
  if (!args.has("profile")) return world;
  const std::string profile = args.get("profile");
  Profile::by_name(profile, "--profile");
  const World named = profile == "reference" ? World::kPaper : World::kGpu;
  if (args.has("world") && named != world)
    throw InputError("--profile", "--profile " + profile + " is --world " + world_name(named) +
                                      ", but --world " + world_name(world) +
                                      " is given too; give only --world");
  return named;
}

}  // namespace pacml::cli
