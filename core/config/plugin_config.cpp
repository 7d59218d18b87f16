#include "core/config/plugin_config.h"

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::plugin {

OnBlock parse_on_block(const std::string& value, const std::string& where) {
  if (value == "reject") return OnBlock::kReject;
  if (value == "queue") return OnBlock::kQueue;
  throw InputError(where, "on_block must be 'reject' or 'queue', got '" + value + "'");
}

const char* on_block_name(OnBlock on_block) {
  return on_block == OnBlock::kQueue ? "queue" : "reject";
}

double parse_margin(const std::string& value, const std::string& where) {
  const double m = parse_finite_double(value, where, "margin");
  if (!(m >= 0 && m < 10))
    throw InputError(where,
                     "margin must be in [0, 10) (a fraction of the predicted JCT: 0.1 = "
                     "10%), got '" +
                         value + "'");
  return m;
}

}  // namespace pacml::plugin
