#pragma once
// The stores as an instance process of a real run reaches them: a client wrapper around each real
// store (SQLite or PostgreSQL) that plays the plan's network and store faults (real/link_faults.h)
// and records each request the store handled with its reply, as a kStoreCall event at the store's
// node (the same record the simulator makes, sim/store_record.h).
//
// Order. Events of different processes are merged by the shared run clock, so a store call must
// be stamped in the order the store judged it. Every recorded call therefore holds an exclusive
// lock on the run's order file (flock) from before the store is asked until its event is
// appended: calls are serialized as SQLite's writers are anyway, and their stamps follow their
// commits. The coordinator takes the same lock before it stops a process from outside, so that no
// process is ever stopped while it holds it.
#include <string>

#include "real/event_log.h"
#include "real/link_faults.h"
#include "real/process_env.h"
#include "runtime/checkpoint_store.h"
#include "runtime/lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "sim/store_record.h"

namespace fencesim::real {

// Holds the run's order lock while it lives.
class OrderLock {
 public:
  explicit OrderLock(int fd);
  ~OrderLock();
  OrderLock(const OrderLock&) = delete;
  OrderLock& operator=(const OrderLock&) = delete;

 private:
  int fd_;
};

// One direction of the network: from an instance node to a store (or sink) node.
struct Wire {
  EventLog& log;
  ProcessEnv& env;  // the instance's environment: its clock stamps the send, its fibers wait
  StoreClock& store_clock;
  LinkFaults& faults;
  int order_fd;
  sim::NodeId from;
  std::string from_name;
  sim::NodeId to;
  std::string to_name;
  std::int64_t rpc_timeout_ns;
};

class LinkedLeaseRepository final : public runtime::ExecutionLeaseRepository {
 public:
  LinkedLeaseRepository(Wire wire, runtime::ExecutionLeaseRepository& target)
      : wire_(std::move(wire)), target_(target) {}
  runtime::TakeResult take(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                           runtime::Nanoseconds ttl_ns) override;
  runtime::RenewResult renew(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                             runtime::Token token, runtime::Nanoseconds ttl_ns) override;
  runtime::ReleaseStatus release(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                                 runtime::Token token) override;
  std::optional<runtime::Lease> read(const runtime::LeaseKey& key) override;

 private:
  Wire wire_;
  runtime::ExecutionLeaseRepository& target_;
};

class LinkedCheckpointStore final : public runtime::CheckpointStore {
 public:
  LinkedCheckpointStore(Wire wire, runtime::CheckpointStore& target)
      : wire_(std::move(wire)), target_(target) {}
  runtime::CommitResult commit_step(const runtime::LeaseKey& key, runtime::Token token,
                                    const std::string& step_path) override;
  runtime::CommitResult commit_tree(const runtime::LeaseKey& key, runtime::Token token) override;
  runtime::Checkpoint load(const runtime::LeaseKey& key) override;
  runtime::CancelStatus request_cancel(const runtime::LeaseKey& key) override;

 private:
  Wire wire_;
  runtime::CheckpointStore& target_;
};

class LinkedPlacementQueue final : public runtime::PlacementQueue {
 public:
  LinkedPlacementQueue(Wire wire, runtime::PlacementQueue& target)
      : wire_(std::move(wire)), target_(target) {}
  void place(const runtime::LeaseKey& key, const std::string& workflow,
             const std::optional<runtime::LeaseKey>& parent) override;
  std::vector<runtime::Placement> pending() override;
  void finish(const runtime::LeaseKey& key) override;
  std::optional<runtime::Placement> find(const runtime::LeaseKey& key) override;

 private:
  Wire wire_;
  runtime::PlacementQueue& target_;
};

class LinkedSink final : public runtime::Sink {
 public:
  LinkedSink(Wire wire, runtime::Sink& target) : wire_(std::move(wire)), target_(target) {}
  const std::string& name() const override { return target_.name(); }
  runtime::SinkReply write(const runtime::SinkWrite& write) override;

 private:
  Wire wire_;
  runtime::Sink& target_;
};

}  // namespace fencesim::real
