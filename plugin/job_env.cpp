#include "plugin/job_env.h"

#include "plugin/compact_graph.h"

extern "C" {
void slurm_xfree(void**);  // Slurm's allocator (not in a public header)
}

namespace pacml::plugin {

std::vector<std::string> take_spank_env(job_desc_msg_t* d) {
  std::vector<std::string> out;
  uint32_t kept = 0;
  for (uint32_t i = 0; d->spank_job_env && i < d->spank_job_env_size; ++i) {
    char* entry = d->spank_job_env[i];
    if (!entry) continue;
    out.emplace_back(entry);
    const std::string name = out.back().substr(0, out.back().find('='));
    if (compact_graph_piece(name) >= 0)
      slurm_xfree(reinterpret_cast<void**>(&entry));
    else
      d->spank_job_env[kept++] = entry;
  }
  for (uint32_t i = kept; d->spank_job_env && i < d->spank_job_env_size; ++i)
    d->spank_job_env[i] = nullptr;
  if (d->spank_job_env) d->spank_job_env_size = kept;
  return out;
}

}  // namespace pacml::plugin
