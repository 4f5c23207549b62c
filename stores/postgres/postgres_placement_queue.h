#pragma once
// PlacementQueue in PostgreSQL. Placing is idempotent by lease key (a unique key and ON CONFLICT
// DO NOTHING, one statement); the placement order is an identity column. Each call is one
// statement in READ COMMITTED.
#include "runtime/placement_queue.h"
#include "stores/postgres/postgres_database.h"

namespace fencesim::stores {

class PostgresPlacementQueue : public runtime::PlacementQueue {
 public:
  explicit PostgresPlacementQueue(PostgresDatabase& database) : database_(database) {}
  void place(const runtime::LeaseKey& key, const std::string& workflow,
             const std::optional<runtime::LeaseKey>& parent) override;
  std::vector<runtime::Placement> pending() override;
  void finish(const runtime::LeaseKey& key) override;
  std::optional<runtime::Placement> find(const runtime::LeaseKey& key) override;

 private:
  PostgresDatabase& database_;
};

}  // namespace fencesim::stores
