// The two worlds pacml decides in (doc/ARCHITECTURE.md §2), named once: every
// file that can run in either (pacml.conf, experiment files, training
// configs) says which with one key, `world: paper|gpu`, read by parse_world.
//
//  paper — the paper's RAMP cluster (doc/MODEL.md): a job gets a degree, how
//          many RAMP servers its graph is split over, from the paper's
//          simulator and its policies (core/policy, core/jct).
//  gpu   — a GPU cluster (doc/PHYSICAL.md): a job gets a GPU count k, chosen
//          by a GPU policy (core/gpu) with the physical model's step times.
#pragma once

#include <optional>
#include <string>

namespace pacml {

enum class World { kPaper, kGpu };

// "paper" or "gpu"; throws InputError(where, ...) naming the value otherwise.
World parse_world(const std::string& text, const std::string& where);
const char* world_name(World world);

// `profile`, the name `world` had in pacml.conf and on the command line:
// physical = gpu, reference = paper. Given with `world` (`given`), the two
// must agree. Throws InputError(where, ...) for another profile or a
// disagreement, naming the keys as written (`profile_key`, `world_key`:
// "profile:" and "world:" in a file, "--profile" and "--world" on a command line).
World world_of_profile(const std::string& profile, std::optional<World> given,
                       const std::string& where, const std::string& profile_key,
                       const std::string& world_key);

}  // namespace pacml
