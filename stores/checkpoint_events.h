#pragma once
// The store-side event of a checkpoint write, as the in-memory checkpoint store reports it:
// committed or refused (detail "cancelled" for a completion refused by a recorded cancel), with the step path ("<tree>" for the tree) and the key's current epoch.
#include <string>

#include "runtime/checkpoint_store.h"
#include "runtime/observer.h"

namespace fencesim::stores {

inline runtime::RuntimeEvent checkpoint_event(const std::string& store,
                                              const runtime::LeaseKey& key, runtime::Token token,
                                              const std::string& what,
                                              const runtime::CommitResult& result) {
  const bool committed = result.status == runtime::CommitStatus::kCommitted;
  return runtime::RuntimeEvent{committed ? runtime::EventKind::kStoreCheckpointCommitted
                                         : runtime::EventKind::kStoreCheckpointRefused,
                               store,
                               key,
                               {},
                               token,
                               what,
                               result.status == runtime::CommitStatus::kCancelled ? "cancelled" : "",
                               static_cast<std::int64_t>(result.current_epoch)};
}

}  // namespace fencesim::stores
