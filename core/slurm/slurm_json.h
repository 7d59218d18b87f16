// Numbers in Slurm's JSON output (squeue --json, sacct --json): plain in
// Slurm 22.05's data_parser v0.0.38, and from 23.02 on also written as
// {"set": bool, "infinite": bool, "number": N}. One reading for every reader
// of those files (sim/trace, sim/history).
#pragma once

#include <nlohmann/json.hpp>

namespace pacml {

// True with `out` set for a plain number or a set, finite wrapped one; false
// for anything else (unset, infinite, not a number).
inline bool slurm_json_number(const nlohmann::json& v, double& out) {
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  if (!v.is_object() || !v.contains("number")) return false;
  const nlohmann::json& set = v.contains("set") ? v["set"] : nlohmann::json(true);
  const nlohmann::json& infinite = v.contains("infinite") ? v["infinite"] : nlohmann::json(false);
  if ((set.is_boolean() && !set.get<bool>()) || (infinite.is_boolean() && infinite.get<bool>()))
    return false;
  return slurm_json_number(v["number"], out);
}

// A time stamp (epoch seconds): a number above 0 and below Slurm's 32-bit
// NO_VAL (0xfffffffe) and INFINITE (0xffffffff), which mark an unset time
// where data_parser prints the sentinel itself (24.11.5's v0.0.42 gives a job
// cancelled before it started "start": 4294967294); 0 is unset too. Epoch
// seconds reach those values in 2106.
inline bool slurm_json_time(const nlohmann::json& v, double& out) {
  double t = 0;
  if (!slurm_json_number(v, t) || !(t > 0 && t < 4294967294.0)) return false;
  out = t;
  return true;
}

}  // namespace pacml
