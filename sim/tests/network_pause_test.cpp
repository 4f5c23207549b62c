// A stopped process reads no socket and runs no timer: a reply that reaches it and its request's
// timeout that falls due meanwhile both wait for SIGCONT, and then the order its event loop takes
// them in is drawn from the network's stream. Before, the timeout ran at its due time during the
// pause and always won, so no run ever had a reply handled after a pause past the lease (the
// window of a write that settles after its lease expired locally).
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "runtime/lease_repository.h"
#include "sim/network.h"
#include "sim/scheduler.h"
#include "sim/tests/scheduler_test_util.h"

namespace fencesim::sim::testing::network_pause_test {
namespace {

constexpr NodeId kClient = 1;
constexpr NodeId kStore = 2;

struct Outcome {
  std::optional<int> reply;  // nullopt: the call timed out
  std::int64_t returned_at = -1;
  std::int64_t handled_at = -1;
};

// The client's request leaves at 0 and is handled at 1 ms; the client is stopped at 0.5 ms and
// continued at `resume_at`; its reply reaches it at 2 ms, while it is stopped.
Outcome call_across_a_stop(std::uint64_t network_seed, std::int64_t resume_at) {
  Scheduler world({.seed = 1});
  NetworkOptions options;
  options.latency_min_ns = options.latency_max_ns = kMs;
  Network network(world, Rng(network_seed), options,
                  [](NodeId, NodeId, const std::string&, const char*) {});
  network.set_paused_probe([&](NodeId node) { return world.node_paused(node); });
  Outcome outcome;
  world.spawn(kClient, "client", [&] {
    try {
      outcome.reply = network.call<int>(kClient, kStore, "ping", [&] {
        outcome.handled_at = world.now_ns();
        return 7;
      });
    } catch (const runtime::StoreUnavailableError&) {
      outcome.reply.reset();
    }
    outcome.returned_at = world.now_ns();
  });
  world.at(kMs / 2, [&] { world.pause_node(kClient); });
  world.at(resume_at, [&] {
    world.resume_node(kClient);
    network.resumed(kClient);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  return outcome;
}

TEST(NetworkPauseTest, AReplyToAStoppedCallerWaitsForItsResume) {
  const Outcome outcome = call_across_a_stop(1, kSec);  // resumed before the 2 s timeout
  EXPECT_EQ(outcome.handled_at, kMs);
  ASSERT_TRUE(outcome.reply.has_value());
  EXPECT_EQ(*outcome.reply, 7);
  EXPECT_EQ(outcome.returned_at, kSec);
}

TEST(NetworkPauseTest, AReplyAndATimeoutDueDuringAStopRaceAtTheResume) {
  std::set<bool> seen;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Outcome outcome = call_across_a_stop(seed, 10 * kSec);
    EXPECT_EQ(outcome.returned_at, 10 * kSec) << "seed " << seed;
    seen.insert(outcome.reply.has_value());
    // The same seed takes them in the same order.
    EXPECT_EQ(call_across_a_stop(seed, 10 * kSec).reply, outcome.reply) << "seed " << seed;
  }
  EXPECT_EQ(seen, (std::set<bool>{false, true})) << "both orders are drawn";
}

TEST(NetworkPauseTest, ATimeoutDueDuringAStopRunsAtTheResumeWhenNoReplyCame) {
  Scheduler world({.seed = 1});
  NetworkOptions options;
  options.latency_min_ns = options.latency_max_ns = kMs;
  Network network(world, Rng(3), options, [](NodeId, NodeId, const std::string&, const char*) {});
  network.set_paused_probe([&](NodeId node) { return world.node_paused(node); });
  network.set_up(kStore, false);
  std::int64_t gave_up_at = -1;
  world.spawn(kClient, "client", [&] {
    EXPECT_THROW(network.call<int>(kClient, kStore, "ping", [] { return 1; }),
                 runtime::StoreUnavailableError);
    gave_up_at = world.now_ns();
  });
  world.at(kMs / 2, [&] { world.pause_node(kClient); });
  world.at(30 * kSec, [&] {
    world.resume_node(kClient);
    network.resumed(kClient);
  });
  EXPECT_EQ(world.run(), RunStatus::kIdle);
  EXPECT_EQ(gave_up_at, 30 * kSec);
}

}  // namespace
}  // namespace fencesim::sim::testing::network_pause_test
