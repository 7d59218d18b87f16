// The world a command runs in (core/world.h), from --world gpu|paper or its
// older name --profile physical|reference: `pacml replay` and `pacml
// estimate` take both, as pacml.conf takes `world:` and `profile:`.
#pragma once

#include <optional>
#include <string>

#include "core/util/args.h"
#include "core/world.h"

namespace pacml::cli {

struct WorldOptions {
  std::optional<World> world;          // --world gpu|paper
  std::optional<std::string> profile;  // --profile physical|reference
  bool given() const { return world || profile; }
};

// Declares --world (help `world_help`) and --profile, bound to `options`.
void add_world_options(Args& args, WorldOptions& options, const std::string& world_help);
// Each alone (pacml replay declares them from its table).
void add_world_option(Args& args, WorldOptions& options, const std::string& world_help);
void add_profile_option(Args& args, WorldOptions& options);

// The world chosen: --world (default gpu) or --profile (physical = gpu,
// reference = paper); both given must agree. Throws InputError naming the option.
World chosen_world(const WorldOptions& options);

}  // namespace pacml::cli
