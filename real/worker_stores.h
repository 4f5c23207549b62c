#pragma once
// The real stores an instance process of a real run opens: the lease table, the checkpoints, the
// placement queue and each sink, in the run's SQLite file or on a PostgreSQL server.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/checkpoint_store.h"
#include "runtime/env.h"
#include "runtime/lease_repository.h"
#include "runtime/observer.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"

namespace fencesim::real {

struct StoreSelection {
  std::string kind = "sqlite";  // sqlite or postgres
  std::string sqlite_path;
  std::string postgres;         // connection string
  std::string postgres_schema;  // the run's own schema
  std::string sink_double;  // "" or "accept-stale"
};

class RealStores {
 public:
  virtual ~RealStores() = default;
  virtual runtime::ExecutionLeaseRepository& leases() = 0;
  virtual runtime::CheckpointStore& checkpoints() = 0;
  virtual runtime::PlacementQueue& queue() = 0;
  // The sink named `name`, reporting its store-side events to `observer`.
  virtual runtime::Sink& sink(const std::string& name, runtime::Observer& observer) = 0;
};

// Opens the stores. Throws stores::StoreSetupError when they cannot be opened.
std::unique_ptr<RealStores> open_stores(const StoreSelection& selection,
                                        runtime::Clock& store_clock,
                                        runtime::Observer& lease_store_observer,
                                        const std::string& lease_store_name);

}  // namespace fencesim::real
