#include "runtime/types.h"

#include <fmt/format.h>

namespace fencesim::runtime {

std::string to_string(const LeaseKey& key) {
  return fmt::format("({}, {})", key.tenant_id, key.lease_execution_id);
}

}  // namespace fencesim::runtime
