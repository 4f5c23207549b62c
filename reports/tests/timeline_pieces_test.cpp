// The timeline's pieces where a run's story bends them (red-team round 29b): a store whose clock
// runs fast, a holder that crashes holding its lease, a holder that releases before its
// confirmedUntil. Each asserts the time a piece is drawn at, which a bar drawn a little off would
// still pass every "is there a bar" check with.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports::timeline_pieces_test {
namespace {

using nlohmann::ordered_json;
using testing::where;

// Each event of the timeline's table is at its true time `t`, with its node's own monotonic
// clock beside it as `mono`: under drift the two part (clock-drift-at-bound seed 1: the holder's
// clock runs slow, the store's fast), and a reader who compares a holder's belief with the store
// needs each in its column (red team 33c: the two swapped passed every test, equal as they are
// without drift).
TEST(TimelinePieces, EachEventIsAtItsTrueTimeWithItsNodesClockBeside) {
  static const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  ordered_json timeline;
  std::vector<std::pair<std::int64_t, std::int64_t>> times;  // by index: (true, node's monotonic)
  properties::run_scenario(registry, properties::RunRequest{"clock-drift-at-bound", 1},
                           [&](const sim::World& world, const properties::RunReport& report) {
                             timeline = timeline_json(world, report, {});
                             for (const sim::HistoryEvent& e : world.history().events()) {
                               times.emplace_back(e.time_ns, e.local_monotonic_ns);
                             }
                           });
  ASSERT_FALSE(timeline["events"].empty());
  std::size_t parted = 0;
  for (const auto& event : timeline["events"]) {
    const auto i = event["i"].get<std::size_t>();
    ASSERT_LT(i, times.size());
    EXPECT_EQ(event["t"].get<std::int64_t>(), times[i].first) << event.dump();
    EXPECT_EQ(event["mono"].get<std::int64_t>(), times[i].second) << event.dump();
    if (times[i].first != times[i].second) ++parted;
  }
  EXPECT_GT(parted, 0u) << "no event whose node's clock had drifted from the true time";
}

// clock-drift-at-bound seed 1: the lease store's clock runs 999 ppm fast, so the store's lease,
// ttl long on its own clock, runs out 999 ppm sooner in true time (about 30 ms of 30 s). The
// store's expiry is taken to true time through the store's clock; taken as the grant's true time
// plus the ttl, the store's lease would be drawn 30 ms too long, past the moment the store
// itself let it go, and the holder's conservative belief would look twice as safe as it was.
TEST(TimelinePieces, TheStoresExpiryRunsOnTheStoresOwnClock) {
  const testing::Captured run = testing::run_and_capture("clock-drift-at-bound", 1);
  const ordered_json& t = run.timeline;
  bool store_drifts = false;
  for (const ordered_json& fault : t["faults"]) {
    store_drifts |= fault["description"] == "clock-drift lease-store 999 ppm at 0.000 s";
  }
  ASSERT_TRUE(store_drifts) << t["faults"].dump();
  const std::int64_t ttl = t["ttl_ns"].get<std::int64_t>();
  ASSERT_EQ(ttl, 30 * runtime::kSecond);
  ASSERT_FALSE(t["epochs"].empty());
  const ordered_json& first = t["epochs"][0];
  ASSERT_TRUE(first["renewals"].empty()) << first.dump();  // its expiry is the grant's
  const std::int64_t lasted =
      first["valid_until_ns"].get<std::int64_t>() - first["granted_ns"].get<std::int64_t>();
  // ttl / (1 + 999e-6), to the nanoseconds of rounding.
  const double expected = static_cast<double>(ttl) * 1e6 / (1e6 + 999);
  EXPECT_NEAR(static_cast<double>(lasted), expected, 1000.0) << first.dump();
  EXPECT_LT(lasted, ttl - 29 * runtime::kMillisecond) << first.dump();
}

// instance-crash-restart seed 1: instance-1 crashes mid-step holding token 1 (its memory, and its
// belief, gone) and comes back as instance-1#2. Its belief ends at the crash, drawn "crashed"
// there, not held to the run's end beside the next holder's.
TEST(TimelinePieces, ABeliefEndsWhereItsHolderCrashed) {
  const testing::Captured run = testing::run_and_capture("instance-crash-restart", 1);
  const ordered_json& t = run.timeline;
  const auto crashes = where(t["events"], "kind", "node-crashed");
  ASSERT_EQ(crashes.size(), 1u) << t["events"].dump();
  const ordered_json& crash = crashes[0];
  const auto beliefs = where(t["beliefs"], "holder", "instance-1");
  ASSERT_EQ(beliefs.size(), 1u) << t["beliefs"].dump();
  const ordered_json& belief = beliefs[0];
  EXPECT_EQ(belief["node"], crash["node"]);
  EXPECT_EQ(belief["token"], 1);
  EXPECT_EQ(belief["end_kind"], "crashed") << belief.dump();
  EXPECT_EQ(belief["ended_ns"], crash["t"]) << belief.dump();
  EXPECT_EQ(belief["end_event"], crash["i"]) << belief.dump();
  EXPECT_LT(belief["ended_ns"].get<std::int64_t>(), t["end_ns"].get<std::int64_t>());
  // Its steps end there too.
  for (const ordered_json& step : where(t["step_runs"], "holder", "instance-1")) {
    EXPECT_LE(step["ended_ns"].get<std::int64_t>(), crash["t"].get<std::int64_t>()) << step.dump();
  }
}

// kleppmann-fencing seed 1: instance-2 releases its lease while it still counted it confirmed
// (its confirmedUntil is later than the release). The confirmed part of a belief is clipped to the
// belief: the holder confirmed nothing after it let the lease go, so no solid bar runs past the
// release (and none past any belief's end, in this run or a crashed holder's).
TEST(TimelinePieces, AConfirmedPartNeverOutlivesItsBelief) {
  const testing::Captured& run = testing::passing_kleppmann();
  const auto released = where(run.timeline["beliefs"], "end_kind", "released");
  ASSERT_EQ(released.size(), 1u);
  ASSERT_GT(released[0]["confirmed_until_ns"].get<std::int64_t>(),
            released[0]["ended_ns"].get<std::int64_t>())
      << released[0].dump();
  ASSERT_FALSE(released[0]["confirmed"].empty());
  EXPECT_EQ(released[0]["confirmed"].back()[1], released[0]["ended_ns"]) << released[0].dump();
  const testing::Captured crashed = testing::run_and_capture("instance-crash-restart", 1);
  for (const testing::Captured* each : {&run, &crashed}) {
    for (const ordered_json& belief : each->timeline["beliefs"]) {
      for (const ordered_json& part : belief["confirmed"]) {
        EXPECT_GE(part[0].get<std::int64_t>(), belief["taken_ns"].get<std::int64_t>())
            << belief.dump();
        EXPECT_LE(part[1].get<std::int64_t>(), belief["ended_ns"].get<std::int64_t>())
            << belief.dump();
      }
    }
  }
}

// A write call waits for its reply, an error or its lease's loss, and the reply is recorded before
// the call returns; a body retries an idempotency key only after the call that sent it returned.
// So an earlier send of a key still waiting when the key is sent again ended without a reply (its
// call failed: a reply that lands later reaches nobody and is never recorded), and a reply belongs
// to the latest send of its key. In swarm seed 6, instance-2 sends the key of its
// probe-withdrawal-29 five times, 2.5 s apart, and gets one reply 26 ms after the last send; it
// was drawn as the reply to the first, 10 s before it (round 27c's open item).
TEST(TimelinePieces, AReplyBelongsToTheLatestSendOfItsIdempotencyKey) {
  const testing::Captured run = testing::run_and_capture("swarm", 6);
  std::vector<ordered_json> sends;
  for (const ordered_json& attempt : run.timeline["attempts"]) {
    const std::string key = attempt["idempotency_key"];
    if (attempt["holder"] == "instance-2" && key.ends_with(":probe-withdrawal-29")) {
      sends.push_back(attempt);
    }
  }
  ASSERT_EQ(sends.size(), 5u) << run.timeline["attempts"].dump();
  for (std::size_t i = 0; i + 1 < sends.size(); ++i) {
    EXPECT_EQ(sends[i]["reply"], "none") << sends[i].dump();
    EXPECT_FALSE(sends[i].contains("reply_event")) << sends[i].dump();
  }
  const ordered_json& last = sends.back();
  EXPECT_EQ(last["reply"], "deduplicated") << last.dump();
  ASSERT_TRUE(last.contains("reply_ns")) << last.dump();
  EXPECT_LT(last["reply_ns"].get<std::int64_t>() - last["t"].get<std::int64_t>(),
            100 * runtime::kMillisecond)
      << last.dump();
  // Every reply of the run comes after the send it is paired with, once.
  std::set<std::uint64_t> replies;
  for (const ordered_json& attempt : run.timeline["attempts"]) {
    if (!attempt.contains("reply_event")) continue;
    EXPECT_GT(attempt["reply_event"].get<std::uint64_t>(), attempt["event"].get<std::uint64_t>());
    EXPECT_TRUE(replies.insert(attempt["reply_event"].get<std::uint64_t>()).second);
  }
}

// nightly-mix seed 2: a 52 s partition of instance-1 from the lease store begins at 135.5 s, and
// the quiet phase heals every fault at 180 s. Its span ends at the healing, not 7.5 s later where
// its planned duration would have run out (round 30b: a span drawn to its plan's end passed every
// test, and showed a partition lasting into the quiet phase that the run had already healed).
TEST(TimelinePieces, AFaultEndsWhereTheQuietPhaseHealedIt) {
  const testing::Captured run = testing::run_and_capture("nightly-mix", 2);
  const ordered_json& t = run.timeline;
  const auto quiet = where(t["phases"], "name", "quiet");
  ASSERT_EQ(quiet.size(), 1u) << t["phases"].dump();
  ASSERT_EQ(quiet[0]["start_ns"], 180 * runtime::kSecond);
  const auto partitions = where(t["faults"], "description",
                                "partition instance-1 <-> lease-store for 52000 ms at 135.541 s");
  ASSERT_EQ(partitions.size(), 1u) << t["faults"].dump();
  const std::int64_t start = partitions[0]["start_ns"].get<std::int64_t>();
  ASSERT_GT(start + 52 * runtime::kSecond, 180 * runtime::kSecond);
  EXPECT_EQ(partitions[0]["end_ns"], 180 * runtime::kSecond) << partitions[0].dump();
  // The quiet phase, the run's last, lasts to the run's end (red team 33c: ended where it began,
  // the healed tail of every run was drawn as no phase at all).
  EXPECT_EQ(quiet[0]["end_ns"], t["end_ns"]) << t["phases"].dump();
  EXPECT_GT(quiet[0]["end_ns"].get<std::int64_t>(), 180 * runtime::kSecond);
}


}  // namespace
}  // namespace fencesim::reports::timeline_pieces_test
