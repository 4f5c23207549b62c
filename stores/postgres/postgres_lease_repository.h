#pragma once
// ExecutionLeaseRepository in PostgreSQL. Expiry is judged by the SERVER's clock
// (clock_timestamp(), read after the key's row lock is held), never the caller's: instances on
// other machines with drifting clocks all meet one judge. Every take, renew and release is one
// READ COMMITTED transaction holding the key's row lock (FOR UPDATE) from the read to the write.
#include <optional>
#include <string>

#include "runtime/env.h"
#include "stores/postgres/postgres_database.h"
#include "stores/row_lease_repository.h"

namespace fencesim::stores {

class PostgresLeaseRepository : public RowLeaseRepository {
 public:
  // The store's clock is the server's.
  PostgresLeaseRepository(PostgresDatabase& database, runtime::Observer& observer);
  // For the lease contract suite only: the suite steps the store's clock by hand, so its
  // `store_clock`'s wall time is sent with each call and stands in for the server's clock in the
  // same statements (fencesim_now_ns(override)).
  PostgresLeaseRepository(PostgresDatabase& database, runtime::Clock& store_clock,
                          runtime::Observer& observer);

  std::optional<Lease> read(const LeaseKey& key) override;

 protected:
  void transact_row(const LeaseKey& key, const RowDecision& decide) override;

 private:
  // "" (the server's clock) or the override's nanoseconds, as the text of a bigint parameter.
  std::string now_override();

  PostgresDatabase& database_;
  runtime::Clock* store_clock_ = nullptr;
};

}  // namespace fencesim::stores
