// What the remote stores record at the store's node (sim/remote_stores.h): the wire's truth the
// oracles and the reference model judge by. A request the store refused by throwing is recorded as
// failed, with the store's words, before the error travels back: a history that left it out would
// show a runtime acting on a refusal that never happened. A read is recorded with the lease it
// returned, which the reference model compares with its own.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/memory_lease_repository.h"
#include "runtime/placement_queue.h"
#include "sim/network.h"
#include "sim/node_clock.h"
#include "sim/remote_stores.h"
#include "sim/scheduler.h"
#include "sim/sim_env.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::remote_store_record_test {
namespace {

constexpr NodeId kClient = 1;
constexpr NodeId kStore = 2;

// Keeps every call the store handled.
class Recorder final : public StoreRecorder {
 public:
  explicit Recorder(Scheduler& world) : world_(world) {}
  runtime::Nanoseconds store_wall_ns(NodeId) const override { return world_.now_ns(); }
  std::int64_t now_ns() const override { return world_.now_ns(); }
  runtime::Nanoseconds monotonic_ns(NodeId) const override { return world_.now_ns(); }
  void record_store_call(NodeId store, StoreCall&& call) override {
    EXPECT_EQ(store, kStore);
    calls.push_back(std::move(call));
  }
  NameKey intern(const runtime::LeaseKey& key) override { return NameKey(key); }
  Name intern(std::string_view text) override { return Name(text); }
  std::vector<StoreCall> calls;

 private:
  Scheduler& world_;
};

Network make_network(Scheduler& world) {
  NetworkOptions options;
  options.latency_min_ns = options.latency_max_ns = kMs;
  return Network(world, Rng(7), options, [](NodeId, NodeId, const std::string&, const char*) {});
}

TEST(RemoteStoreRecord, ARequestTheStoreRefusedByThrowingIsRecordedAsFailed) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  Recorder recorder(world);
  runtime::MemoryPlacementQueue queue;
  RemotePlacementQueue remote(Route{network, kClient, kStore, &recorder}, queue);
  const runtime::LeaseKey reserved{"tenant-1",
                                   std::string(runtime::kChildExecutionPrefix) + "order-1"};
  bool refused = false;
  world.spawn(kClient, "client", [&] {
    try {
      remote.place(reserved, "order", std::nullopt);  // a root under a child's reserved id
    } catch (const runtime::PlacementError&) {
      refused = true;
    }
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_TRUE(refused);
  ASSERT_EQ(recorder.calls.size(), 1u);
  const StoreCall& call = recorder.calls.front();
  EXPECT_EQ(call.op, StoreOp::kPlace);
  EXPECT_TRUE(call.failed);
  EXPECT_NE(call.outcome.find("reserved child prefix"), std::string::npos) << call.outcome;
  EXPECT_EQ(call.argument, "order");
}

TEST(RemoteStoreRecord, AReadIsRecordedWithTheLeaseItReturned) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  Recorder recorder(world);
  NodeClock clock;
  SimEnv store_env(world, kStore, clock, Rng(1));
  runtime::NullObserver observer;
  runtime::MemoryLeaseRepository leases(store_env, observer);
  RemoteLeaseRepository remote(Route{network, kClient, kStore, &recorder}, leases);
  const runtime::LeaseKey key{"tenant-1", "order-1"};
  world.spawn(kClient, "client", [&] {
    EXPECT_EQ(remote.take(key, "instance-1", 30 * kSec).status, runtime::TakeStatus::kTaken);
    const std::optional<runtime::Lease> read = remote.read(key);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->token, 1u);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  ASSERT_EQ(recorder.calls.size(), 2u);
  const StoreCall& call = recorder.calls.back();
  EXPECT_EQ(call.op, StoreOp::kRead);
  ASSERT_TRUE(call.lease.has_value());
  EXPECT_EQ(call.lease->token, 1u);
  EXPECT_EQ(call.lease->holder, "instance-1");
}

}  // namespace
}  // namespace fencesim::sim::testing::remote_store_record_test
