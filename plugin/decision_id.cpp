#include "plugin/decision_id.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pacml::plugin {

std::string new_decision_id(std::uint64_t serial) {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string id = std::to_string(serial) + ".";
  for (unsigned char b : bytes) id += hex[b >> 4], id += hex[b & 15];
  return id;
}

}  // namespace pacml::plugin
