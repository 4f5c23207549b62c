// The in-memory checkpoint store, sink and placement queue against their contract suites (the
// same suites the SQLite and PostgreSQL stores pass, in stores/tests/).
#include <memory>

#include "runtime/checkpoint_store.h"
#include "runtime/memory_lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "runtime/tests/checkpoint_store_contract.h"
#include "runtime/tests/placement_queue_contract.h"
#include "runtime/tests/sink_contract.h"

namespace fencesim::runtime::store_contracts_test {
namespace {

NullObserver null_observer;

FENCESIM_INSTANTIATE_CHECKPOINT_STORE_CONTRACT(Memory, [](Clock& store_clock) {
  contract::CheckpointContractStores stores;
  auto leases = std::make_unique<MemoryLeaseRepository>(store_clock, null_observer);
  stores.checkpoints = std::make_unique<MemoryCheckpointStore>(*leases, null_observer);
  stores.leases = std::move(leases);
  return stores;
});

FENCESIM_INSTANTIATE_SINK_CONTRACT(Memory, [](const std::string& name, Observer& observer) {
  return std::shared_ptr<Sink>(std::make_shared<MemorySink>(name, observer));
});

FENCESIM_INSTANTIATE_PLACEMENT_QUEUE_CONTRACT(Memory, [] {
  return std::shared_ptr<PlacementQueue>(std::make_shared<MemoryPlacementQueue>());
});

}  // namespace
}  // namespace fencesim::runtime::store_contracts_test
