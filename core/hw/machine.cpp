#include "core/hw/machine.h"

namespace pacml::hw {

bool Machine::is_uniform() const {
  return sockets > 0 && cores > 0 && threads > 0 && cores % sockets == 0 && threads % cores == 0;
}

std::string short_hostname(const std::string& hostname) {
  return hostname.substr(0, hostname.find('.'));
}

}  // namespace pacml::hw
