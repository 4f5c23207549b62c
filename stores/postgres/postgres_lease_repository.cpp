#include "stores/postgres/postgres_lease_repository.h"

#include "stores/hex.h"

namespace fencesim::stores {
namespace {

constexpr const char* kSelectRow =
    "SELECT epoch, encode(holder, 'hex'), expires_at_ns, released FROM fencesim_leases "
    "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex')";

std::optional<Lease> lease_of(const LeaseKey& key, const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  const pqxx::row row = rows[0];
  return Lease{key, from_hex(row[1].as<std::string>()), row[0].as<Token>(),
               row[2].as<Nanoseconds>(), row[3].as<bool>()};
}

}  // namespace

PostgresLeaseRepository::PostgresLeaseRepository(PostgresDatabase& database,
                                                 runtime::Observer& observer)
    : RowLeaseRepository(observer), database_(database) {}

PostgresLeaseRepository::PostgresLeaseRepository(PostgresDatabase& database,
                                                 runtime::Clock& store_clock,
                                                 runtime::Observer& observer)
    : RowLeaseRepository(observer), database_(database), store_clock_(&store_clock) {}

std::string PostgresLeaseRepository::now_override() {
  return store_clock_ == nullptr ? std::string() : std::to_string(store_clock_->wall_ns());
}

std::optional<Lease> PostgresLeaseRepository::read(const LeaseKey& key) {
  std::optional<Lease> lease;
  database_.read_committed([&](pqxx::work& work) {
    lease = lease_of(
        key, work.exec_params(kSelectRow, to_hex(key.tenant_id), to_hex(key.lease_execution_id)));
  });
  return lease;
}

void PostgresLeaseRepository::transact_row(const LeaseKey& key, const RowDecision& decide) {
  const std::string tenant = to_hex(key.tenant_id);
  const std::string execution = to_hex(key.lease_execution_id);
  database_.read_committed([&](pqxx::work& work) {
    for (;;) {
      const std::optional<Lease> row = lease_of(
          key, work.exec_params(std::string(kSelectRow) + " FOR UPDATE", tenant, execution));
      // The server's now, read once the lock is held: a wait for the lock cannot make a lease
      // look live that expired during the wait.
      const auto now =
          work.exec_params("SELECT fencesim_now_ns(nullif($1, '')::bigint)", now_override())[0][0]
              .as<Nanoseconds>();
      const std::optional<Lease> next = decide(row, now);
      if (!next) return;
      if (row) {
        work.exec_params(
            "UPDATE fencesim_leases SET epoch = $3, holder = decode($4, 'hex'), "
            "expires_at_ns = $5, released = $6 "
            "WHERE tenant_id = decode($1, 'hex') AND lease_execution_id = decode($2, 'hex')",
            tenant, execution, next->token, to_hex(next->holder), next->expires_at_ns,
            next->released);
        return;
      }
      // The key's first take. Another first take may insert the row between our SELECT and this
      // INSERT: then ours inserts nothing, and the loop locks and judges the row it inserted
      // (READ COMMITTED: the next statement sees it).
      const pqxx::result inserted = work.exec_params(
          "INSERT INTO fencesim_leases "
          "(tenant_id, lease_execution_id, epoch, holder, expires_at_ns, released) "
          "VALUES (decode($1, 'hex'), decode($2, 'hex'), $3, decode($4, 'hex'), $5, $6) "
          "ON CONFLICT (tenant_id, lease_execution_id) DO NOTHING RETURNING epoch",
          tenant, execution, next->token, to_hex(next->holder), next->expires_at_ns,
          next->released);
      if (!inserted.empty()) return;
    }
  });
}

}  // namespace fencesim::stores
