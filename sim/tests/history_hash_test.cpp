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

// Every other field of a store call, and every field of the event around it, reaches the hash too:
// the reply's fields (its outcome, the lease it gave, the epoch or high-water token it answered)
// are what oracles judge, and an encoding that writes one field where another belongs (the
// request's token for the reply's) still gives each run one hash, so neither the determinism
// check nor a sweep notices; only a change of that one field does.
TEST(HistoryHashTest, EveryFieldOfAStoreCallAndItsEventChangesTheHash) {
  const auto hash_with = [](const std::function<void(HistoryEvent&, StoreCall&)>& change) {
    StoreCall call;
    call.op = StoreOp::kRenew;
    call.store = "lease-store";
    call.holder = "instance-1";
    call.key = runtime::LeaseKey{"tenant-1", "order-1"};
    call.token = 3;
    call.ttl_ns = 30;
    call.argument = "charge";
    call.parent = runtime::LeaseKey{"tenant-1", "order-0"};
    call.scope_key = "tenant-1:order-1";
    call.payload = "charge 42 EUR";
    call.store_wall_ns = 40;
    call.sent_ns = 4;
    call.sent_monotonic_ns = 6;
    call.from = 3;
    call.outcome = "renewed";
    call.lease = runtime::Lease{runtime::LeaseKey{"tenant-1", "order-1"}, "instance-1", 3, 70};
    call.reply_token = 5;
    call.completed_steps = {"reserve"};
    HistoryEvent e;
    e.time_ns = 5;
    e.node = 1;
    e.local_monotonic_ns = 8;
    e.world = WorldEventKind::kStoreCall;
    e.detail = "detail";
    change(e, call);
    History history;
    e.store = std::make_shared<const StoreCall>(std::move(call));
    history.record(std::move(e));
    return history.hash();
  };
  const std::uint64_t unchanged = hash_with([](HistoryEvent&, StoreCall&) {});
  EXPECT_EQ(hash_with([](HistoryEvent&, StoreCall&) {}), unchanged);
  const std::vector<std::pair<const char*, std::function<void(HistoryEvent&, StoreCall&)>>> changes{
      {"time_ns", [](HistoryEvent& e, StoreCall&) { e.time_ns = 6; }},
      {"node", [](HistoryEvent& e, StoreCall&) { e.node = 2; }},
      {"local_monotonic_ns", [](HistoryEvent& e, StoreCall&) { e.local_monotonic_ns = 9; }},
      {"event detail", [](HistoryEvent& e, StoreCall&) { e.detail = "other"; }},
      {"key",
       [](HistoryEvent&, StoreCall& c) {
         c.key = runtime::LeaseKey{"tenant-1", "order-2"};
       }},
      {"argument", [](HistoryEvent&, StoreCall& c) { c.argument = "refund"; }},
      {"parent", [](HistoryEvent&, StoreCall& c) { c.parent.reset(); }},
      {"parent's key",
       [](HistoryEvent&, StoreCall& c) {
         c.parent = runtime::LeaseKey{"tenant-1", "order-9"};
       }},
      {"scope_key", [](HistoryEvent&, StoreCall& c) { c.scope_key = "tenant-1:order-2"; }},
      {"payload", [](HistoryEvent&, StoreCall& c) { c.payload = "charge 43 EUR"; }},
      {"store_wall_ns", [](HistoryEvent&, StoreCall& c) { c.store_wall_ns = 41; }},
      {"sent_ns", [](HistoryEvent&, StoreCall& c) { c.sent_ns = 3; }},
      {"sent_monotonic_ns", [](HistoryEvent&, StoreCall& c) { c.sent_monotonic_ns = 7; }},
      {"from", [](HistoryEvent&, StoreCall& c) { c.from = 4; }},
      {"failed", [](HistoryEvent&, StoreCall& c) { c.failed = true; }},
      {"outcome", [](HistoryEvent&, StoreCall& c) { c.outcome = "stale"; }},
      {"lease", [](HistoryEvent&, StoreCall& c) { c.lease.reset(); }},
      {"lease's key", [](HistoryEvent&, StoreCall& c) { c.lease->key.lease_execution_id = "o-2"; }},
      {"lease's holder", [](HistoryEvent&, StoreCall& c) { c.lease->holder = "instance-2"; }},
      {"lease's token", [](HistoryEvent&, StoreCall& c) { c.lease->token = 4; }},
      {"lease's expiry", [](HistoryEvent&, StoreCall& c) { c.lease->expires_at_ns = 71; }},
      {"lease's release", [](HistoryEvent&, StoreCall& c) { c.lease->released = true; }},
      {"reply_token", [](HistoryEvent&, StoreCall& c) { c.reply_token = 6; }},
      {"completed_steps", [](HistoryEvent&, StoreCall& c) { c.completed_steps = {"assemble"}; }},
      {"tree_completed", [](HistoryEvent&, StoreCall& c) { c.tree_completed = true; }},
      {"cancelled", [](HistoryEvent&, StoreCall& c) { c.cancelled = true; }},
  };
  for (const auto& [field, change] : changes) {
    EXPECT_NE(hash_with(change), unchanged) << "only " << field << " differs";
  }
}

}  // namespace
}  // namespace fencesim::sim::history_hash_test
