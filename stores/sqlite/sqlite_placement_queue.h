#pragma once
// PlacementQueue in a SQLite file. Placing is idempotent by lease key (a unique key and INSERT OR
// IGNORE); the placement order is the table's AUTOINCREMENT sequence, assigned under the file's
// write lock, so it is the order in which placements committed.
#include "runtime/placement_queue.h"
#include "stores/sqlite/sqlite_database.h"

namespace fencesim::stores {

class SqlitePlacementQueue : public runtime::PlacementQueue {
 public:
  explicit SqlitePlacementQueue(SqliteDatabase& database) : database_(database) {}
  void place(const runtime::LeaseKey& key, const std::string& workflow,
             const std::optional<runtime::LeaseKey>& parent) override;
  std::vector<runtime::Placement> pending() override;
  void finish(const runtime::LeaseKey& key) override;
  std::optional<runtime::Placement> find(const runtime::LeaseKey& key) override;

 private:
  SqliteDatabase& database_;
};

}  // namespace fencesim::stores
