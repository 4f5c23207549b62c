#include "stores/sqlite/sqlite_lease_repository.h"

namespace fencesim::stores {

SqliteLeaseRepository::SqliteLeaseRepository(SqliteDatabase& database, runtime::Clock& store_clock,
                                             runtime::Observer& observer)
    : RowLeaseRepository(observer), database_(database), store_clock_(store_clock) {}

std::optional<Lease> SqliteLeaseRepository::read(const LeaseKey& key) {
  SqliteStatement select = database_.prepare(
      "SELECT epoch, holder, expires_at_ns, released FROM fencesim_leases "
      "WHERE tenant_id = ?1 AND lease_execution_id = ?2");
  select.bind(1, key.tenant_id).bind(2, key.lease_execution_id);
  if (!select.step()) return std::nullopt;
  return Lease{key, select.blob(1), static_cast<Token>(select.integer(0)), select.integer(2),
               select.integer(3) != 0};
}

void SqliteLeaseRepository::transact_row(const LeaseKey& key, const RowDecision& decide) {
  database_.immediate([&] {
    const std::optional<Lease> row = read(key);
    // Read after the write lock is held: no other writer can move the row before our write.
    const std::optional<Lease> next = decide(row, store_clock_.wall_ns());
    if (!next) return;
    SqliteStatement upsert = database_.prepare(
        "INSERT INTO fencesim_leases "
        "(tenant_id, lease_execution_id, epoch, holder, expires_at_ns, released) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (tenant_id, lease_execution_id) DO UPDATE "
        "SET epoch = excluded.epoch, holder = excluded.holder, "
        "expires_at_ns = excluded.expires_at_ns, released = excluded.released");
    upsert.bind(1, key.tenant_id)
        .bind(2, key.lease_execution_id)
        .bind(3, static_cast<std::int64_t>(next->token))
        .bind(4, next->holder)
        .bind(5, next->expires_at_ns)
        .bind(6, std::int64_t{next->released ? 1 : 0})
        .run();
  });
}

}  // namespace fencesim::stores
