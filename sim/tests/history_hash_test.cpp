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

// Each test holds for both ways of writing names (sim::HistoryHashScheme): a field one scheme drops
// is as unseen as a field the encoding drops.
class HistoryHashTest : public ::testing::TestWithParam<HistoryHashScheme> {};

std::uint64_t hash_of(HistoryHashScheme scheme, WorldEventKind world, const RuntimeEvent& event) {
  History history;
  history.set_hash_scheme(scheme);
  HistoryEvent e;
  e.time_ns = 5;
  e.node = 2;
  e.local_monotonic_ns = 5;
  e.world = world;
  e.runtime = RuntimeRecord(event);
  history.record(std::move(e));
  return history.hash();
}

TEST_P(HistoryHashTest, EveryFieldOfARuntimeRecordChangesTheHash) {
  const HistoryHashScheme scheme = GetParam();
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
    const std::uint64_t unchanged = hash_of(scheme, world, base);
    EXPECT_EQ(hash_of(scheme, world, base), unchanged) << "the same event, the same hash";
    for (const auto& [field, change] : changes) {
      RuntimeEvent changed = base;
      change(changed);
      EXPECT_NE(hash_of(scheme, world, changed), unchanged)
          << "only " << field << " differs (" << to_string(world) << ")";
    }
  }
}

// A store call's own fields reach the hash too: found by the mechanical harness sample, where the
// store-call test inverted (`!=`) left every store call's fields out of the hash unseen.
TEST_P(HistoryHashTest, AStoreCallsFieldsChangeTheHash) {
  const HistoryHashScheme scheme = GetParam();
  const auto hash_with = [scheme](const std::function<void(StoreCall&)>& change) {
    StoreCall call;
    call.op = StoreOp::kRenew;
    call.store = "lease-store";
    call.holder = "instance-1";
    call.key = runtime::LeaseKey{"tenant-1", "order-1"};
    call.token = 3;
    call.ttl_ns = 30;
    change(call);
    History history;
    history.set_hash_scheme(scheme);
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
TEST_P(HistoryHashTest, EveryFieldOfAStoreCallAndItsEventChangesTheHash) {
  const HistoryHashScheme scheme = GetParam();
  const auto hash_with = [scheme](const std::function<void(HistoryEvent&, StoreCall&)>& change) {
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
    history.set_hash_scheme(scheme);
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

INSTANTIATE_TEST_SUITE_P(BothSchemes, HistoryHashTest,
                         ::testing::Values(HistoryHashScheme::kNameBytes,
                                           HistoryHashScheme::kNameHashes),
                         [](const ::testing::TestParamInfo<HistoryHashScheme>& param) {
                           return param.param == HistoryHashScheme::kNameBytes ? "NameBytes"
                                                                              : "NameHashes";
                         });

// The canonical encoding written out by this test, field by field, for one runtime event: fixed
// 8-byte integers, and each name either as its length and bytes (scheme 1, every hash up to
// replay-file schema 3) or as the XXH3 of its bytes (scheme 2). A replay file records a hash made
// this way; if the encoder drifts, no file written before replays as the same history.
class TheEncoding {
 public:
  explicit TheEncoding(HistoryHashScheme scheme) : scheme_(scheme) {}
  void integer(std::uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {  // little-endian, as the machines that wrote them
      bytes_.push_back(static_cast<char>((value >> (8 * byte)) & 0xff));
    }
  }
  void name(const std::string& text) {
    if (scheme_ == HistoryHashScheme::kNameBytes) {
      integer(text.size());
      bytes_ += text;
    } else {
      integer(text.empty() ? 0 : XXH3_64bits(text.data(), text.size()));
    }
  }
  std::uint64_t hash() const { return XXH3_64bits(bytes_.data(), bytes_.size()); }

 private:
  HistoryHashScheme scheme_;
  std::string bytes_;
};

TEST(HistoryHashScheme, EachSchemeIsTheCanonicalEncodingItNames) {
  const std::string tenant(700, '\xe9');  // a hostile tenant name, as nightly-mix draws them
  const RuntimeEvent event{runtime::EventKind::kStepStarted,
                           "instance-1",
                           {tenant, "order-1"},
                           "scope/key",
                           3,
                           "charge",
                           "",
                           7};
  for (const HistoryHashScheme scheme :
       {HistoryHashScheme::kNameBytes, HistoryHashScheme::kNameHashes}) {
    SCOPED_TRACE(static_cast<int>(scheme));
    History history;
    history.set_hash_scheme(scheme);
    EXPECT_EQ(history.hash_scheme(), scheme);
    HistoryEvent e;
    e.time_ns = 5;
    e.node = 2;
    e.local_monotonic_ns = 6;
    e.world = WorldEventKind::kRuntime;
    e.runtime = RuntimeRecord(event);
    e.detail = "a world detail";
    history.record(std::move(e));

    TheEncoding expected(scheme);
    expected.integer(5);
    expected.integer(2);
    expected.integer(6);
    expected.integer(0);  // WorldEventKind::kRuntime
    expected.integer(static_cast<std::uint64_t>(runtime::EventKind::kStepStarted));
    expected.name("instance-1");
    expected.name(tenant);
    expected.name("order-1");
    expected.name("scope/key");
    expected.integer(3);
    expected.name("charge");
    expected.name("");  // the runtime's detail: empty, 0 in both schemes
    expected.integer(7);
    expected.name("a world detail");
    EXPECT_EQ(history.hash(), expected.hash());
  }
}

// The current scheme is the one new runs use, and the two differ on any event with a name.
TEST(HistoryHashScheme, NewHistoriesHashNamesByTheirHashes) {
  EXPECT_EQ(History().hash_scheme(), HistoryHashScheme::kNameHashes);
  const RuntimeEvent event{runtime::EventKind::kStepStarted, "instance-1", {"t", "o"}, "", 1, "", "",
                           0};
  EXPECT_NE(hash_of(HistoryHashScheme::kNameBytes, WorldEventKind::kRuntime, event),
            hash_of(HistoryHashScheme::kNameHashes, WorldEventKind::kRuntime, event));
}

}  // namespace
}  // namespace fencesim::sim::history_hash_test
