#pragma once
// What an instance process of the world holds in memory, lost on a crash (sim/world.h keeps it by
// pointer): its remote stores and its runtime instance. Included by the world's own files only.
#include <map>
#include <memory>
#include <string>

#include "runtime/instance.h"
#include "sim/remote_stores.h"
#include "sim/restartable_lease_store.h"
#include "sim/world.h"

namespace fencesim::sim {

struct World::Incarnation {
  RemoteLeaseRepository leases;
  RemoteCheckpointStore checkpoints;
  RemotePlacementQueue queue;
  std::map<std::string, std::unique_ptr<RemoteSink>> sinks;
  std::unique_ptr<runtime::Instance> instance;
};

}  // namespace fencesim::sim
