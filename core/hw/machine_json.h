// A machine description as JSON (`pacml node describe --json`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/hw/machine.h"

namespace pacml::hw {

// {"node_name", "hostname", "cpus", "sockets", "cores", "cores_per_socket",
//  "threads_per_core", "memory_bytes", "real_memory_mb", "gpus": [...],
//  "nics": [...], "slurm": {"node_line", "node_attributes", "gres_conf": [...]}}
nlohmann::json machine_to_json(const Machine& machine, const std::string& node_name = "");

}  // namespace pacml::hw
