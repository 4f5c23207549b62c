// A pause that the quiet phase's heal cuts short: what the paused node held leaves at the heal,
// and its requests time out counting from the heal, as the resumed process's own timers would.
#include <gtest/gtest.h>

#include <string>

#include "runtime/lease_repository.h"
#include "sim/network.h"
#include "sim/scheduler.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::network_heal_test {
namespace {

constexpr NodeId kClient = 1;
constexpr NodeId kStore = 2;

Network make_network(Scheduler& world) {
  NetworkOptions options;
  options.latency_min_ns = options.latency_max_ns = kMs;  // every message takes 1 ms
  return Network(world, Rng(7), options, [](NodeId, NodeId, const std::string&, const char*) {});
}

// The client is paused until `held_until` right after it decided to send a ping; `handled_at` is
// when the store handles it (-1 while it has not).
void spawn_held_ping(Scheduler& world, Network& network, std::int64_t held_until,
                     std::int64_t& handled_at) {
  world.spawn(kClient, "client", [&world, &network, held_until, &handled_at] {
    network.hold_sends(kClient, held_until);
    world.pause_node(kClient);
    network.call<int>(kClient, kStore, "ping", [&] {
      handled_at = world.now_ns();
      return 1;
    });
  });
}

// The client is paused until 60 s with a request it sent on its way; the world heals at 20 s.
TEST(NetworkHealTest, ARequestHeldByAPauseLeavesAtTheHeal) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  std::int64_t handled_at = -1;
  std::int64_t replied_at = -1;
  world.spawn(kClient, "client", [&] {
    network.hold_sends(kClient, 60 * kSec);  // paused right after it decided to send
    world.pause_node(kClient);
    const int reply = network.call<int>(kClient, kStore, "ping", [&] {
      handled_at = world.now_ns();
      return 1;
    });
    EXPECT_EQ(reply, 1);
    replied_at = world.now_ns();
  });
  world.at(20 * kSec, [&] {
    world.resume_node(kClient);
    network.heal();
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(handled_at, 20 * kSec + kMs);
  EXPECT_EQ(replied_at, 20 * kSec + 2 * kMs);
}

// When a client, paused until `held_until` right after it sent a ping to a store that never
// answers, gives up, the world healing at 20 s.
std::int64_t gave_up_after_heal(std::int64_t held_until, std::int64_t rpc_timeout_ns) {
  Scheduler world({.seed = 1});
  NetworkOptions options;
  options.latency_min_ns = options.latency_max_ns = kMs;
  options.rpc_timeout_ns = rpc_timeout_ns;
  Network network(world, Rng(7), options, [](NodeId, NodeId, const std::string&, const char*) {});
  network.set_up(kStore, false);
  std::int64_t gave_up_at = -1;
  world.spawn(kClient, "client", [&] {
    network.hold_sends(kClient, held_until);
    world.pause_node(kClient);
    EXPECT_THROW(network.call<int>(kClient, kStore, "ping", [] { return 1; }),
                 runtime::StoreUnavailableError);
    gave_up_at = world.now_ns();
  });
  world.at(20 * kSec, [&] {
    world.resume_node(kClient);
    network.heal();
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  return gave_up_at;
}

// The store never answers (its requests are lost): the timeout counts from the heal, not from the
// pause's planned end.
TEST(NetworkHealTest, AHeldRequestTimesOutCountingFromTheHeal) {
  const std::int64_t timeout_ns = NetworkOptions{}.rpc_timeout_ns;
  EXPECT_EQ(gave_up_after_heal(60 * kSec, timeout_ns), 20 * kSec + timeout_ns);
}

// A pause shorter than the request's timeout is cut short the same way: the timeout counts from
// the heal (20 s + 30 s), not from the pause's planned end (25 s + 30 s), however short the pause.
TEST(NetworkHealTest, AShortHoldsTimeoutCountsFromTheHealToo) {
  EXPECT_EQ(gave_up_after_heal(25 * kSec, 30 * kSec), 50 * kSec);
}

// Messages in flight to a migrating node wait for the migration's end, or for the heal.
TEST(NetworkHealTest, AMessageDelayedByAMigrationGoesOnAtTheHeal) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  std::int64_t handled_at = -1;
  world.spawn(kClient, "client", [&] {
    // The caller gives up after its timeout (2 s); the request is still on its way.
    EXPECT_THROW(network.call<int>(kClient, kStore, "ping",
                                   [&] {
                                     handled_at = world.now_ns();
                                     return 1;
                                   }),
                 runtime::StoreUnavailableError);
  });
  world.at(kMs / 2, [&] { network.delay_in_flight(kStore, 60 * kSec); });
  world.at(20 * kSec, [&] { network.heal(); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(handled_at, 20 * kSec);
}

// Without a heal nothing moves: the request leaves at the pause's planned end.
TEST(NetworkHealTest, WithoutAHealARequestLeavesAtThePausesEnd) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  std::int64_t handled_at = -1;
  spawn_held_ping(world, network, 60 * kSec, handled_at);
  world.at(60 * kSec, [&] { world.resume_node(kClient); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(handled_at, 60 * kSec + kMs);
}

// A process killed while paused never sends what it held: its request is in the dead process's
// buffer, not on the wire, so no store handles it at the pause's planned end (nor at a heal).
TEST(NetworkHealTest, ARequestHeldByAPauseDiesWithItsProcess) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  std::int64_t handled_at = -1;
  spawn_held_ping(world, network, 60 * kSec, handled_at);
  world.at(20 * kSec, [&] {
    world.kill_node(kClient);
    network.forget_holds(kClient);
  });
  world.at(70 * kSec, [&] { network.heal(); });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(handled_at, -1) << "a dead process's held request reached the store";
  EXPECT_EQ(world.now_ns(), 70 * kSec);
}

// What left before the process died is on the wire and goes on: the pause ended at 20 s, the
// request left then, and the process died half way to the store.
TEST(NetworkHealTest, ARequestThatLeftBeforeItsProcessDiedArrives) {
  Scheduler world({.seed = 1});
  Network network = make_network(world);
  std::int64_t handled_at = -1;
  spawn_held_ping(world, network, 20 * kSec, handled_at);
  world.at(20 * kSec, [&] { world.resume_node(kClient); });
  world.at(20 * kSec + kMs / 2, [&] {
    world.kill_node(kClient);
    network.forget_holds(kClient);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(handled_at, 20 * kSec + kMs);
}

}  // namespace
}  // namespace fencesim::sim::testing::network_heal_test
