#include "runtime/check.h"

#include <fmt/format.h>

namespace fencesim {

void check_failed(const char* what, std::source_location where) {
  throw CheckFailure(
      fmt::format("check failed: {} ({}:{})", what, where.file_name(), where.line()));
}

}  // namespace fencesim
