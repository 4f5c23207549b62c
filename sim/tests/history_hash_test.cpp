// The history hash folds in every field of an event (sim/history.h): the determinism check and a
// replay's divergence search compare hashes, so a field the encoding drops or repeats is a
// difference neither can see (two runs that differ only in which tree of a tenant an event is
// about would hash alike).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/history.h"

namespace fencesim::sim::history_hash_test {
namespace {

using runtime::RuntimeEvent;

std::uint64_t hash_of(WorldEventKind world, const RuntimeEvent& event) {
  History history;
  HistoryEvent e;
  e.time_ns = 5;
  e.node = 2;
  e.local_monotonic_ns = 5;
  e.world = world;
  e.runtime = RuntimeRecord(event);
  history.record(std::move(e));
  return history.hash();
}

TEST(HistoryHashTest, EveryFieldOfARuntimeRecordChangesTheHash) {
  const RuntimeEvent base{runtime::EventKind::kStepStarted,
                          "instance-1",
                          {"tenant-1", "order-1"},
                          "tenant-1:order-1",
                          3,
                          "charge",
                          "detail",
                          7};
  const std::vector<std::pair<const char*, std::function<void(RuntimeEvent&)>>> changes{
      {"kind", [](RuntimeEvent& e) { e.kind = runtime::EventKind::kStepEnded; }},
      {"holder", [](RuntimeEvent& e) { e.holder = "instance-2"; }},
      {"tenant_id", [](RuntimeEvent& e) { e.key.tenant_id = "tenant-2"; }},
      {"lease_execution_id", [](RuntimeEvent& e) { e.key.lease_execution_id = "order-2"; }},
      {"scope_key", [](RuntimeEvent& e) { e.scope_key = "tenant-1:order-2"; }},
      {"token", [](RuntimeEvent& e) { e.token = 4; }},
      {"step", [](RuntimeEvent& e) { e.step = "refund"; }},
      {"detail", [](RuntimeEvent& e) { e.detail = "other"; }},
      {"value", [](RuntimeEvent& e) { e.value = 8; }},
  };
  for (const WorldEventKind world : {WorldEventKind::kRuntime, WorldEventKind::kIntent,
                                     WorldEventKind::kObserved, WorldEventKind::kCancelRequest}) {
    const std::uint64_t unchanged = hash_of(world, base);
    EXPECT_EQ(hash_of(world, base), unchanged) << "the same event, the same hash";
    for (const auto& [field, change] : changes) {
      RuntimeEvent changed = base;
      change(changed);
      EXPECT_NE(hash_of(world, changed), unchanged)
          << "only " << field << " differs (" << to_string(world) << ")";
    }
  }
}

// A store call's own fields reach the hash too: found by the mechanical harness sample, where the
// store-call test inverted (`!=`) left every store call's fields out of the hash unseen.
TEST(HistoryHashTest, AStoreCallsFieldsChangeTheHash) {
  const auto hash_with = [](const std::function<void(StoreCall&)>& change) {
    StoreCall call;
    call.op = StoreOp::kRenew;
    call.store = "lease-store";
    call.holder = "instance-1";
    call.key = runtime::LeaseKey{"tenant-1", "order-1"};
    call.token = 3;
    call.ttl_ns = 30;
    change(call);
    History history;
    HistoryEvent e;
    e.time_ns = 5;
    e.node = 1;
    e.world = WorldEventKind::kStoreCall;
    e.store = std::make_shared<const StoreCall>(std::move(call));
    history.record(std::move(e));
    return history.hash();
  };
  const std::uint64_t unchanged = hash_with([](StoreCall&) {});
  EXPECT_EQ(hash_with([](StoreCall&) {}), unchanged);
  EXPECT_NE(hash_with([](StoreCall& c) { c.op = StoreOp::kTake; }), unchanged);
  EXPECT_NE(hash_with([](StoreCall& c) { c.store = "other-store"; }), unchanged);
  EXPECT_NE(hash_with([](StoreCall& c) { c.holder = "instance-2"; }), unchanged);
  EXPECT_NE(hash_with([](StoreCall& c) { c.token = 4; }), unchanged);
  EXPECT_NE(hash_with([](StoreCall& c) { c.ttl_ns = 31; }), unchanged);
}

}  // namespace
}  // namespace fencesim::sim::history_hash_test
