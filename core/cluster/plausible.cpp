#include "core/cluster/plausible.h"

#include <sstream>

#include "core/util/error.h"
#include "core/util/yaml_input.h"

namespace pacml {

double yaml_plausible(const YAML::Node& node, const std::string& source, const std::string& what,
                      const PlausibleRange& range) {
  const double v = yaml_number(node, source, what);
  if (v < range.min || v > range.max) {
    std::ostringstream message;
    message << what << " = " << v << " is outside [" << range.min << ", " << range.max << "] "
            << range.unit << " (a unit slip?)";
    throw InputError(yaml_where(source, node), message.str());
  }
  return v;
}

}  // namespace pacml
