// What differs between the Slurm releases job_submit/pacml is built against
// (22.05 and 24.11 are tested: plugin/README.md), keyed on
// SLURM_VERSION_NUMBER from the slurm_version.h the plugin is compiled
// with. One home for every release difference the code has to branch on;
// behaviours that need no branch (slurmstepd's authentication lock,
// reconfigure starting a new slurmctld) are described in plugin/README.md.
#pragma once

extern "C" {
#include <slurm/slurm_version.h>
}

namespace pacml::plugin {

// The GRES prefix of a job_desc's TRES requests (tres_per_node, …): Slurm
// 23.02 changed "gres:gpu:4" to "gres/gpu:4", and refuses the old form
// ("Invalid Trackable RESource (TRES) specification").
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
inline constexpr const char* kGresTresPrefix = "gres/";
#else
inline constexpr const char* kGresTresPrefix = "gres:";
#endif

}  // namespace pacml::plugin
