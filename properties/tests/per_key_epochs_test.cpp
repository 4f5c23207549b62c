// per-key-epochs judged on a world's own history, where world events (a phase, a fault applied, a
// node paused) come before and between the store's grants: a checker that stopped at the first
// event it does not judge would pass every run and never say so.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "properties/invariants_builtin.h"
#include "properties/tests/story_event.h"
#include "sim/world.h"

namespace fencesim::properties::per_key_epochs_test {
namespace {

using runtime::EventKind;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const runtime::LeaseKey kOther{"tenant-1", "order-2"};
constexpr sim::NodeId kStore = 1;

class Grants {
 public:
  Grants() : world_(sim::WorldOptions{}) {}
  std::uint64_t world_event(sim::WorldEventKind kind, std::string detail) {
    sim::HistoryEvent e = next(kStore, kind);
    e.detail = std::move(detail);
    return adopt(std::move(e));
  }
  std::uint64_t grant(const runtime::LeaseKey& key, runtime::Token token) {
    sim::HistoryEvent e = next(kStore, sim::WorldEventKind::kRuntime);
    e.runtime.kind = EventKind::kStoreLeaseGranted;
    e.runtime.holder = "instance-1";
    e.runtime.key = key;
    e.runtime.token = token;
    return adopt(std::move(e));
  }
  // A row the store held before the run (World::inherit_lease's record).
  std::uint64_t restore(const runtime::LeaseKey& key, runtime::Token token) {
    sim::HistoryEvent e = next(kStore, sim::WorldEventKind::kStoreCall);
    auto call = std::make_shared<sim::StoreCall>();
    call->op = sim::StoreOp::kRestore;
    call->store = "lease-store";
    call->key = key;
    call->token = token;
    call->outcome = "ok";
    call->lease = runtime::Lease{key, "earlier", token, 0, true};
    e.store = std::move(call);
    return adopt(std::move(e));
  }
  std::vector<Violation> check() const {
    std::vector<Violation> found;
    PerKeyEpochs{}.check(world_, found);
    return found;
  }

 private:
  sim::HistoryEvent next(sim::NodeId node, sim::WorldEventKind kind) const {
    const Events& events = world_.history().events();
    return testing::next_event(events, node, kind, static_cast<std::int64_t>(events.size()));
  }
  std::uint64_t adopt(sim::HistoryEvent e) {
    const std::uint64_t index = e.index;
    world_.adopt_event(std::move(e));
    return index;
  }
  sim::World world_;
};

TEST(PerKeyEpochs, GrantsOneEpochApartPerKeyPassAmongWorldEvents) {
  Grants g;
  g.world_event(sim::WorldEventKind::kPhase, "safety");
  g.grant(kTree, 1);
  g.world_event(sim::WorldEventKind::kNodePaused, "");
  g.grant(kOther, 1);
  g.grant(kTree, 2);
  EXPECT_TRUE(g.check().empty());
}

TEST(PerKeyEpochs, AGrantThatSkipsAnEpochAfterWorldEventsIsReported) {
  Grants g;
  g.world_event(sim::WorldEventKind::kPhase, "safety");
  const std::uint64_t first = g.grant(kTree, 1);
  g.world_event(sim::WorldEventKind::kFaultApplied, "pause instance-1 for 5s");
  const std::uint64_t skipped = g.grant(kTree, 3);
  const std::vector<Violation> found = g.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().invariant, "per-key-epochs");
  EXPECT_EQ(found.front().events, (std::vector<std::uint64_t>{first, skipped}));
}

TEST(PerKeyEpochs, AKeysFirstGrantAtAnotherTokenNamesOnlyItself) {
  // No grant came before it: the violation points at the grant alone, not at event #0.
  Grants g;
  g.world_event(sim::WorldEventKind::kPhase, "safety");
  const std::uint64_t grant = g.grant(kTree, 2);
  const std::vector<Violation> found = g.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().events, (std::vector<std::uint64_t>{grant}));
}

TEST(PerKeyEpochs, AnEpochGrantedTwiceIsReported) {
  Grants g;
  g.world_event(sim::WorldEventKind::kPhase, "safety");
  g.grant(kTree, 1);
  g.grant(kTree, 1);
  ASSERT_EQ(g.check().size(), 1u);
}

// Every report, not only the first: two keys each skip an epoch, and both grants are reported
// (tools/quiet-oracles.py --sites --first-only: the oracle stopped at its first report passed
// every test above, each of which had one wrong grant).
TEST(PerKeyEpochsEveryReport, TwoKeysEachSkippingAnEpochAreBothReported) {
  Grants g;
  g.world_event(sim::WorldEventKind::kPhase, "safety");
  const std::uint64_t tree_first = g.grant(kTree, 1);
  const std::uint64_t other_first = g.grant(kOther, 1);
  const std::uint64_t tree_skipped = g.grant(kTree, 3);
  const std::uint64_t other_skipped = g.grant(kOther, 4);
  const std::vector<Violation> found = g.check();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{tree_first, tree_skipped}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{other_first, other_skipped}));
}

// A key whose row the store inherited goes on from the row's epoch; one that did not starts at 1.
TEST(PerKeyEpochs, AnInheritedKeysEpochsGoOnFromItsRow) {
  Grants g;
  g.restore(kTree, 41);
  g.grant(kTree, 42);
  const std::uint64_t fresh = g.grant(kOther, 42);
  const std::vector<Violation> found = g.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().events, (std::vector<std::uint64_t>{fresh}));
}

// ADR-0023: tokens are safe integers; a grant past 2^53-1 is a violation even one epoch on.
TEST(PerKeyEpochs, AGrantPastTwoToTheFiftyThreeIsReported) {
  constexpr runtime::Token kLast = 9'007'199'254'740'991;
  Grants g;
  g.restore(kTree, kLast);
  const std::uint64_t past = g.grant(kTree, kLast + 1);
  const std::vector<Violation> found = g.check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().events, (std::vector<std::uint64_t>{past}));
  EXPECT_NE(found.front().message.find("past 2^53-1"), std::string::npos) << found.front().message;
}

}  // namespace
}  // namespace fencesim::properties::per_key_epochs_test
