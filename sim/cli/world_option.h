// The world a command runs in (core/world.h), from --world gpu|paper or its
// older name --profile physical|reference: `pacml replay` and `pacml
// estimate` take both, as pacml.conf takes `world:` and `profile:`.
#pragma once

#include "core/util/args.h"
#include "core/world.h"

namespace pacml::cli {

// --world (default gpu) or --profile (physical = gpu, reference = paper);
// both given must agree. Throws InputError naming the option.
World world_from_options(const Args& args);

}  // namespace pacml::cli
