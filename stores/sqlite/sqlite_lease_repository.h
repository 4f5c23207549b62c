#pragma once
// ExecutionLeaseRepository in a SQLite file. Expiry is judged by `store_clock`'s wall clock: the
// store is embedded, so its clock is the clock of the process (or the test) that owns the file.
// Every take, renew and release is one BEGIN IMMEDIATE transaction (SERIALIZABLE: the file's write
// lock is held from the row's read to its write).
#include "runtime/env.h"
#include "stores/row_lease_repository.h"
#include "stores/sqlite/sqlite_database.h"

namespace fencesim::stores {

class SqliteLeaseRepository : public RowLeaseRepository {
 public:
  SqliteLeaseRepository(SqliteDatabase& database, runtime::Clock& store_clock,
                        runtime::Observer& observer);
  std::optional<Lease> read(const LeaseKey& key) override;

 protected:
  void transact_row(const LeaseKey& key, const RowDecision& decide) override;

 private:
  SqliteDatabase& database_;
  runtime::Clock& store_clock_;
};

}  // namespace fencesim::stores
