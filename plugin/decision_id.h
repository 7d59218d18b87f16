// Decision ids: the name of one pacml decision in the job's annotation
// (AdminComment), its PACML_DECISION variable and the decision log.
//
// The background thread matches decisions to Slurm's jobs by this id, so it
// must not be guessable: an id a user could predict, written into their own
// job's Comment, would release another user's reservation or claim another
// job's log record. Each id carries 128 random bits from the kernel
// (getrandom(2)); the engine also binds it to the user it was made for
// (Engine::job_seen).
#pragma once

#include <cstdint>
#include <string>

namespace pacml::plugin {

// "SERIAL.HEX" (HEX: 32 hex digits of getrandom(2)); `serial` keeps ids in
// the order they were made, for people reading logs. Throws
// std::runtime_error if the kernel gives no random bytes (never falls back
// to a predictable id).
std::string new_decision_id(std::uint64_t serial);

}  // namespace pacml::plugin
