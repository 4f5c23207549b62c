// The SQLite and PostgreSQL stores against the runtime's contract suites, the same suites the
// in-memory stores pass (runtime/tests/*_contract.h), with their assertions unchanged.
#include <memory>

#include "runtime/observer.h"
#include "runtime/tests/checkpoint_store_contract.h"
#include "runtime/tests/lease_repository_contract.h"
#include "runtime/tests/placement_queue_contract.h"
#include "runtime/tests/sink_contract.h"
#include "stores/postgres/postgres_checkpoint_store.h"
#include "stores/postgres/postgres_lease_repository.h"
#include "stores/postgres/postgres_placement_queue.h"
#include "stores/postgres/postgres_sink.h"
#include "stores/sqlite/sqlite_checkpoint_store.h"
#include "stores/sqlite/sqlite_lease_repository.h"
#include "stores/sqlite/sqlite_placement_queue.h"
#include "stores/sqlite/sqlite_sink.h"
#include "stores/testing/test_stores.h"

namespace fencesim::stores::contracts_test {
namespace {

using runtime::Clock;
using runtime::ExecutionLeaseRepository;
using runtime::Observer;
using runtime::contract::CheckpointContractStores;

runtime::NullObserver null_observer;

// A store object that keeps its database alive as long as it lives: the holder is the first base,
// so it is built before the store and destroyed after it.
template <class Database>
struct DatabaseHolder {
  std::shared_ptr<Database> database;
};

template <class Store, class Database>
struct Owning final : DatabaseHolder<Database>, Store {
  template <class... Args>
  explicit Owning(std::shared_ptr<Database> held, Args&&... args)
      : DatabaseHolder<Database>{std::move(held)},
        Store(*this->database, std::forward<Args>(args)...) {}
};

FENCESIM_INSTANTIATE_LEASE_REPOSITORY_CONTRACT(Sqlite, [](Clock& store_clock) {
  return std::unique_ptr<ExecutionLeaseRepository>(
      std::make_unique<Owning<SqliteLeaseRepository, SqliteDatabase>>(testing::fresh_sqlite(),
                                                                      store_clock, null_observer));
});

FENCESIM_INSTANTIATE_LEASE_REPOSITORY_CONTRACT(Postgres, [](Clock& store_clock) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return std::unique_ptr<ExecutionLeaseRepository>();
  return std::unique_ptr<ExecutionLeaseRepository>(
      std::make_unique<Owning<PostgresLeaseRepository, PostgresDatabase>>(database, store_clock,
                                                                          null_observer));
});

FENCESIM_INSTANTIATE_CHECKPOINT_STORE_CONTRACT(Sqlite, [](Clock& store_clock) {
  std::shared_ptr<SqliteDatabase> database = testing::fresh_sqlite();
  CheckpointContractStores stores;
  stores.owner = database;
  stores.leases = std::make_unique<SqliteLeaseRepository>(*database, store_clock, null_observer);
  stores.checkpoints = std::make_unique<SqliteCheckpointStore>(*database, null_observer);
  return stores;
});

FENCESIM_INSTANTIATE_CHECKPOINT_STORE_CONTRACT(Postgres, [](Clock& store_clock) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  CheckpointContractStores stores;
  if (!database) return stores;
  stores.owner = database;
  stores.leases = std::make_unique<PostgresLeaseRepository>(*database, store_clock, null_observer);
  stores.checkpoints = std::make_unique<PostgresCheckpointStore>(*database, null_observer);
  return stores;
});

FENCESIM_INSTANTIATE_SINK_CONTRACT(Sqlite, [](const std::string& name, Observer& observer) {
  return std::shared_ptr<runtime::Sink>(std::make_shared<Owning<SqliteSink, SqliteDatabase>>(
      testing::fresh_sqlite(), name, observer));
});

FENCESIM_INSTANTIATE_SINK_CONTRACT(Postgres, [](const std::string& name, Observer& observer) {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return std::shared_ptr<runtime::Sink>();
  return std::shared_ptr<runtime::Sink>(
      std::make_shared<Owning<PostgresSink, PostgresDatabase>>(database, name, observer));
});

FENCESIM_INSTANTIATE_PLACEMENT_QUEUE_CONTRACT(Sqlite, [] {
  return std::shared_ptr<runtime::PlacementQueue>(
      std::make_shared<Owning<SqlitePlacementQueue, SqliteDatabase>>(testing::fresh_sqlite()));
});

FENCESIM_INSTANTIATE_PLACEMENT_QUEUE_CONTRACT(Postgres, [] {
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) return std::shared_ptr<runtime::PlacementQueue>();
  return std::shared_ptr<runtime::PlacementQueue>(
      std::make_shared<Owning<PostgresPlacementQueue, PostgresDatabase>>(database));
});

}  // namespace
}  // namespace fencesim::stores::contracts_test
