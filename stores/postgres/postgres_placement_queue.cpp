#include "stores/postgres/postgres_placement_queue.h"

#include "stores/hex.h"

namespace fencesim::stores {

using runtime::LeaseKey;
using runtime::Placement;

namespace {

constexpr const char* kColumns =
    "SELECT sequence, encode(tenant_id, 'hex'), encode(lease_execution_id, 'hex'), "
    "encode(workflow, 'hex'), encode(parent_tenant_id, 'hex'), "
    "encode(parent_lease_execution_id, 'hex'), finished FROM fencesim_placements ";

Placement placement_of(const pqxx::row& row) {
  Placement placement{
      LeaseKey{from_hex(row[1].as<std::string>()), from_hex(row[2].as<std::string>())},
      from_hex(row[3].as<std::string>()), std::nullopt, row[0].as<std::uint64_t>(),
      row[6].as<bool>()};
  if (!row[4].is_null()) {
    placement.parent =
        LeaseKey{from_hex(row[4].as<std::string>()), from_hex(row[5].as<std::string>())};
  }
  return placement;
}

}  // namespace

void PostgresPlacementQueue::place(const LeaseKey& key, const std::string& workflow,
                                   const std::optional<LeaseKey>& parent) {
  // A root with a child's (reserved) execution id could share a lease with that child: refused
  // before anything is stored, as every queue does (runtime/placement_queue.h).
  if (!parent && runtime::is_child_execution_id(key.lease_execution_id)) {
    throw runtime::PlacementError(
        "a root's execution id may not start with the reserved child prefix: " +
        key.lease_execution_id);
  }
  // No parent: "" with a NULL flag, since libpqxx 6 binds one parameter type per position.
  const bool has_parent = parent.has_value();
  database_.read_committed([&](pqxx::work& work) {
    work.exec_params(
        "INSERT INTO fencesim_placements (tenant_id, lease_execution_id, workflow, "
        "parent_tenant_id, parent_lease_execution_id, finished) "
        "VALUES (decode($1, 'hex'), decode($2, 'hex'), decode($3, 'hex'), "
        "CASE WHEN $6 THEN decode($4, 'hex') END, CASE WHEN $6 THEN decode($5, 'hex') END, false) "
        "ON CONFLICT (tenant_id, lease_execution_id) DO NOTHING",
        to_hex(key.tenant_id), to_hex(key.lease_execution_id), to_hex(workflow),
        has_parent ? to_hex(parent->tenant_id) : std::string(),
        has_parent ? to_hex(parent->lease_execution_id) : std::string(), has_parent);
  });
}

std::vector<Placement> PostgresPlacementQueue::pending() {
  std::vector<Placement> out;
  database_.read_committed([&](pqxx::work& work) {
    out.clear();
    for (const pqxx::row& row :
         work.exec(std::string(kColumns) + "WHERE NOT finished ORDER BY sequence")) {
      out.push_back(placement_of(row));
    }
  });
  return out;
}

void PostgresPlacementQueue::finish(const LeaseKey& key) {
  database_.read_committed([&](pqxx::work& work) {
    work.exec_params(
        "UPDATE fencesim_placements SET finished = true "
        "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex')",
        to_hex(key.tenant_id), to_hex(key.lease_execution_id));
  });
}

std::optional<Placement> PostgresPlacementQueue::find(const LeaseKey& key) {
  std::optional<Placement> found;
  database_.read_committed([&](pqxx::work& work) {
    const pqxx::result rows = work.exec_params(
        std::string(kColumns) +
            "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex')",
        to_hex(key.tenant_id), to_hex(key.lease_execution_id));
    found = rows.empty() ? std::nullopt : std::optional<Placement>(placement_of(rows[0]));
  });
  return found;
}

}  // namespace fencesim::stores
