#include "stores/sqlite/sqlite_placement_queue.h"

namespace fencesim::stores {

using runtime::LeaseKey;
using runtime::Placement;

namespace {

constexpr const char* kQueueColumns =
    "SELECT sequence, tenant_id, lease_execution_id, workflow, parent_tenant_id, "
    "parent_lease_execution_id, finished FROM fencesim_placements ";

Placement placement_of(const SqliteStatement& row) {
  Placement placement{LeaseKey{row.blob(1), row.blob(2)}, row.blob(3), std::nullopt,
                      static_cast<std::uint64_t>(row.integer(0)), row.integer(6) != 0};
  if (!row.is_null(4)) placement.parent = LeaseKey{row.blob(4), row.blob(5)};
  return placement;
}

}  // namespace

void SqlitePlacementQueue::place(const LeaseKey& key, const std::string& workflow,
                                 const std::optional<LeaseKey>& parent) {
  // A root with a child's (reserved) execution id could share a lease with that child: refused
  // before anything is stored, as every queue does (runtime/placement_queue.h).
  if (!parent && runtime::is_child_execution_id(key.lease_execution_id)) {
    throw runtime::PlacementError(
        "a root's execution id may not start with the reserved child prefix: " +
        key.lease_execution_id);
  }
  database_.immediate([&] {
    SqliteStatement insert = database_.prepare(
        "INSERT OR IGNORE INTO fencesim_placements (tenant_id, lease_execution_id, workflow, "
        "parent_tenant_id, parent_lease_execution_id, finished) VALUES (?1, ?2, ?3, ?4, ?5, 0)");
    insert.bind(1, key.tenant_id).bind(2, key.lease_execution_id).bind(3, workflow);
    if (parent) {
      insert.bind(4, parent->tenant_id).bind(5, parent->lease_execution_id);
    } else {
      insert.bind_null(4).bind_null(5);
    }
    insert.run();
  });
}

std::vector<Placement> SqlitePlacementQueue::pending() {
  std::vector<Placement> out;
  SqliteStatement select =
      database_.prepare(std::string(kQueueColumns) + "WHERE finished = 0 ORDER BY sequence");
  while (select.step()) out.push_back(placement_of(select));
  return out;
}

void SqlitePlacementQueue::finish(const LeaseKey& key) {
  database_.immediate([&] {
    SqliteStatement update = database_.prepare(
        "UPDATE fencesim_placements SET finished = 1 "
        "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
    update.bind(1, key.tenant_id).bind(2, key.lease_execution_id).run();
  });
}

std::optional<Placement> SqlitePlacementQueue::find(const LeaseKey& key) {
  SqliteStatement select =
      database_.prepare(std::string(kQueueColumns) + "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
  select.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
  if (!select.step()) return std::nullopt;
  return placement_of(select);
}

}  // namespace fencesim::stores
