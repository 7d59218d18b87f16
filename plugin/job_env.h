// The job's SPANK environment as job_submit/pacml reads it from a
// job_desc_msg_t (Slurm's types: built into job_submit_pacml.so only).
#pragma once

#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
}

namespace pacml::plugin {

// Every "KEY=VALUE" entry of d->spank_job_env. The compact graph's pieces
// (PACML_GRAPH_DATA_*, plugin/compact_graph.h) are taken out of the job as
// they are read: slurmctld would otherwise keep up to max_graph_bytes in the
// job record and its saved state, and hand it to every prolog and epilog
// (as SPANK_PACML_GRAPH_DATA_*).
std::vector<std::string> take_spank_env(job_desc_msg_t* d);

}  // namespace pacml::plugin
