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

}  // namespace pacml
