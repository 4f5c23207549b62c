#include "real/worker_stores.h"

#include <map>

#include "real/accept_stale_sink.h"
#include "stores/postgres/postgres_checkpoint_store.h"
#include "stores/postgres/postgres_database.h"
#include "stores/postgres/postgres_lease_repository.h"
#include "stores/postgres/postgres_placement_queue.h"
#include "stores/postgres/postgres_sink.h"
#include "stores/sqlite/sqlite_checkpoint_store.h"
#include "stores/sqlite/sqlite_database.h"
#include "stores/sqlite/sqlite_lease_repository.h"
#include "stores/sqlite/sqlite_placement_queue.h"
#include "stores/sqlite/sqlite_sink.h"
#include "stores/store_setup_error.h"

namespace fencesim::real {

namespace {

class SqliteStores final : public RealStores {
 public:
  SqliteStores(const StoreSelection& selection, runtime::Clock& store_clock,
               runtime::Observer& observer, const std::string& name)
      : selection_(selection),
        database_(selection.sqlite_path),
        leases_(database_, store_clock, observer),
        checkpoints_(database_, observer, name),
        queue_(database_) {}
  runtime::ExecutionLeaseRepository& leases() override { return leases_; }
  runtime::CheckpointStore& checkpoints() override { return checkpoints_; }
  runtime::PlacementQueue& queue() override { return queue_; }
  runtime::Sink& sink(const std::string& name, runtime::Observer& observer) override {
    auto& slot = sinks_[name];
    if (!slot) {
      if (selection_.sink_double == "accept-stale") {
        slot = std::make_unique<AcceptStaleSqliteSink>(database_, name, observer);
      } else {
        slot = std::make_unique<stores::SqliteSink>(database_, name, observer);
      }
    }
    return *slot;
  }

 private:
  StoreSelection selection_;
  stores::SqliteDatabase database_;
  stores::SqliteLeaseRepository leases_;
  stores::SqliteCheckpointStore checkpoints_;
  stores::SqlitePlacementQueue queue_;
  std::map<std::string, std::unique_ptr<runtime::Sink>> sinks_;
};

// PostgreSQL: the scaled run clock stands in for the server's clock (the scale makes a 30 s lease
// last 300 ms, which the server's own clock cannot know).
class PostgresStores final : public RealStores {
 public:
  PostgresStores(const StoreSelection& selection, runtime::Clock& store_clock,
                 runtime::Observer& observer, const std::string& name)
      : database_(selection.postgres, selection.postgres_schema),
        leases_(database_, store_clock, observer),
        checkpoints_(database_, observer, name),
        queue_(database_) {}
  runtime::ExecutionLeaseRepository& leases() override { return leases_; }
  runtime::CheckpointStore& checkpoints() override { return checkpoints_; }
  runtime::PlacementQueue& queue() override { return queue_; }
  runtime::Sink& sink(const std::string& name, runtime::Observer& observer) override {
    auto& slot = sinks_[name];
    if (!slot) slot = std::make_unique<stores::PostgresSink>(database_, name, observer);
    return *slot;
  }

 private:
  stores::PostgresDatabase database_;
  stores::PostgresLeaseRepository leases_;
  stores::PostgresCheckpointStore checkpoints_;
  stores::PostgresPlacementQueue queue_;
  std::map<std::string, std::unique_ptr<runtime::Sink>> sinks_;
};

}  // namespace

std::unique_ptr<RealStores> open_stores(const StoreSelection& selection,
                                        runtime::Clock& store_clock,
                                        runtime::Observer& lease_store_observer,
                                        const std::string& lease_store_name) {
  if (selection.kind == "postgres") {
    return std::make_unique<PostgresStores>(selection, store_clock, lease_store_observer,
                                            lease_store_name);
  }
  return std::make_unique<SqliteStores>(selection, store_clock, lease_store_observer,
                                        lease_store_name);
}

}  // namespace fencesim::real
