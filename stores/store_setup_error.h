#pragma once
// Errors of opening a store, as opposed to using one: a PostgreSQL address that cannot be reached,
// a file that is not a SQLite database or is locked, a schema of another version. The message is
// one line that says which and what to do; nothing was written. A command maps it to exit 2.
// (A call that cannot reach a store once open throws runtime::StoreUnavailableError instead.)
#include <stdexcept>

namespace fencesim::stores {

class StoreSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The version of the schema this build reads and writes, in both SQLite and PostgreSQL. A store
// created by another version is refused at open, never migrated or half-used.
inline constexpr int kSchemaVersion = 2;  // 2: fencesim_checkpoints.cancelled (#360)

}  // namespace fencesim::stores
