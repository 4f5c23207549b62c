// A duplicated request's second copy comes soon after the first, or long after it, up to past a
// lease's ttl (sim/network.cpp): the stale request that lands after its sender moved on, the case
// a token must refuse. Counting duplicates (the fault ledger) cannot tell a 20 ms echo from a 40 s
// stale replay; this measures the gap between the two copies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/lease_policy.h"
#include "sim/network.h"
#include "sim/scheduler.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::network_duplicate_test {
namespace {

constexpr NodeId kClient = 1;
constexpr NodeId kStore = 2;

TEST(NetworkDuplicateTest, ASecondCopySometimesLandsPastALeasesTtl) {
  Scheduler world({.seed = 1});
  Network network(world, Rng(5), NetworkOptions{},
                  [](NodeId, NodeId, const std::string&, const char*) {});
  // Every request to the store is duplicated, for longer than the run.
  network.add_node_trouble(kStore, LinkTrouble{.until_ns = 1'000'000 * kSec,
                                               .duplicate_probability = 1.0});
  constexpr std::size_t kCalls = 40;
  std::vector<std::vector<std::int64_t>> handled(kCalls);
  world.spawn(kClient, "client", [&] {
    for (std::size_t i = 0; i < kCalls; ++i) {
      network.call<int>(kClient, kStore, "ping", [&world, &handled, i] {
        handled[i].push_back(world.now_ns());
        return static_cast<int>(i);
      });
    }
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  const std::int64_t ttl = runtime::LeasePolicy{}.ttl_ns;
  int soon = 0;
  int past_ttl = 0;
  for (std::size_t i = 0; i < kCalls; ++i) {
    ASSERT_EQ(handled[i].size(), 2u) << "call " << i << " is handled once per copy";
    const std::int64_t gap = handled[i][1] - handled[i][0];
    soon += gap < kSec;
    past_ttl += gap > ttl;
  }
  EXPECT_GE(soon, 1) << "a copy the network duplicated on its way";
  EXPECT_GE(past_ttl, 1) << "a copy stuck in a queue that lands after its sender's lease is gone";
}

// A request held in its paused sender (sim/network.cpp's held path) is duplicated like any
// other when its destination duplicates, and not duplicated when it does not.
std::vector<std::size_t> copies_handled_of_held_calls(double duplicate_probability) {
  Scheduler world({.seed = 2});
  Network network(world, Rng(7), NetworkOptions{},
                  [](NodeId, NodeId, const std::string&, const char*) {});
  if (duplicate_probability > 0) {
    network.add_node_trouble(kStore, LinkTrouble{.until_ns = 1'000'000 * kSec,
                                                 .duplicate_probability = duplicate_probability});
  }
  constexpr std::size_t kCalls = 6;
  std::vector<std::size_t> handled(kCalls, 0);
  world.spawn(kClient, "client", [&] {
    for (std::size_t i = 0; i < kCalls; ++i) {
      // Held: the client's sends leave only in 2 s, as a paused process's would.
      network.hold_sends(kClient, world.now_ns() + 2 * kSec);
      network.call<int>(kClient, kStore, "ping", [&handled, i] {
        ++handled[i];
        return 0;
      });
    }
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  return handled;
}

TEST(NetworkDuplicateTest, AHeldRequestIsDuplicatedOnlyWhereTheNetworkDuplicates) {
  EXPECT_EQ(copies_handled_of_held_calls(1.0), std::vector<std::size_t>(6, 2));
  EXPECT_EQ(copies_handled_of_held_calls(0.0), std::vector<std::size_t>(6, 1));
}

}  // namespace
}  // namespace fencesim::sim::testing::network_duplicate_test
