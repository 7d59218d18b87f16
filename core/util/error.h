// Errors that pacml reports to a person: what is wrong and where.
//
// Every parser and validator throws pacml::InputError with a location
// ("graph.txt:17", "pacml.conf", "--topology") so that the command line, the
// simulator and the Slurm plugin can all show a message that names the file,
// line or option at fault. Nothing in core/ prints or exits on its own.
#pragma once

#include <stdexcept>
#include <string>

namespace pacml {

class InputError : public std::runtime_error {
 public:
  // where: a file:line, an option name or another short locator; may be empty.
  InputError(std::string where, const std::string& what)
      : std::runtime_error(where.empty() ? what : where + ": " + what), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

// Builds "file:line" for error messages.
inline std::string file_line(const std::string& file, long line) {
  return file + ":" + std::to_string(line);
}

}  // namespace pacml
