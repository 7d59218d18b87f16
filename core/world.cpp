#include "core/world.h"

#include "core/util/error.h"

namespace pacml {

World parse_world(const std::string& text, const std::string& where) {
  if (text == "paper") return World::kPaper;
  if (text == "gpu") return World::kGpu;
  throw InputError(where,
                   "world must be 'paper' (the paper's RAMP cluster, degrees) or 'gpu' "
                   "(a GPU cluster, GPU counts), not '" +
                       text + "'");
}

const char* world_name(World world) {
  return world == World::kGpu ? "gpu" : "paper";
}

World world_of_profile(const std::string& profile, std::optional<World> given,
                       const std::string& where, const std::string& profile_key,
                       const std::string& world_key) {
  if (profile != "physical" && profile != "reference")
    throw InputError(where, "unknown profile '" + profile + "' (" + profile_key + " physical is " +
                                world_key + " gpu, reference is " + world_key + " paper)");
  const World named = profile == "reference" ? World::kPaper : World::kGpu;
  if (given && *given != named)
    throw InputError(where, profile_key + " " + profile + " is " + world_key + " " +
                                world_name(named) + ", but " + world_key + " " +
                                world_name(*given) + " is given too; give only " + world_key);
  return named;
}

}  // namespace pacml
