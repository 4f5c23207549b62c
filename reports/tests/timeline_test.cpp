// timeline_json on real runs of kleppmann-fencing seed 1: what each holder believed against what
// the store and the sink recorded, the fault as a span, and the violation pinned to the stale
// write a broken sink accepted.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "reports/replay_file.h"
#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports::timeline_test {
namespace {

using testing::Captured;
using testing::where;

std::uint32_t node_id(const Captured& run, const std::string& name) {
  const auto it = std::find(run.node_names.begin(), run.node_names.end(), name);
  EXPECT_NE(it, run.node_names.end()) << name;
  return static_cast<std::uint32_t>(it - run.node_names.begin());
}

TEST(TimelineTest, HeaderSaysWhatRanAndHowToReplayIt) {
  const Captured& run = testing::failing_kleppmann();
  const auto& t = run.timeline;
  EXPECT_EQ(t["format"], "fencesim-timeline");
  EXPECT_EQ(t["version"], 1);
  EXPECT_EQ(t["scenario"], "kleppmann-fencing");
  EXPECT_EQ(t["seed_text"], "1");
  EXPECT_EQ(t["strategy"], "random");
  EXPECT_EQ(t["sink_double"], "accept-stale");
  EXPECT_EQ(t["status"], "violation");
  EXPECT_EQ(t["history_hash"], hash_hex(run.report.history_hash));
  EXPECT_EQ(t["replay_command"], "fencesim replay fencesim-replay-kleppmann-fencing-1.json");
  ASSERT_EQ(t["plan"].size(), run.report.plan.faults.size());
  EXPECT_EQ(t["plan"][0]["description"], sim::describe(run.report.plan.faults[0]));
  EXPECT_TRUE(t["shrunk_plan"].is_null());
  // Every event is in the table (the history is short), in order.
  ASSERT_EQ(t["events"].size(), run.report.events);
  for (std::size_t i = 0; i < t["events"].size(); ++i) EXPECT_EQ(t["events"][i]["i"], i);
  EXPECT_EQ(t["events_omitted"], 0);
}

TEST(TimelineTest, BeliefsPerHolderAgainstEpochsAtTheStore) {
  const Captured& run = testing::passing_kleppmann();
  const auto& t = run.timeline;
  const auto first = where(t["beliefs"], "node", node_id(run, "instance-1"));
  const auto second = where(t["beliefs"], "node", node_id(run, "instance-2"));
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(first[0]["token"], 1);
  EXPECT_EQ(second[0]["token"], 2);
  // Holder 1 stalled past its lease: it held the lease object past its confirmedUntil, until it
  // noticed the loss on waking; its confirmed part ends at confirmedUntil.
  EXPECT_EQ(first[0]["end_kind"], "lost");
  EXPECT_LT(first[0]["confirmed_until_ns"].get<std::int64_t>(),
            first[0]["ended_ns"].get<std::int64_t>());
  ASSERT_EQ(first[0]["confirmed"].size(), 1u);
  EXPECT_EQ(first[0]["confirmed"][0][1], first[0]["confirmed_until_ns"]);
  EXPECT_EQ(run.timeline["events"][first[0]["event"].get<std::size_t>()]["kind"], "lease-taken");
  EXPECT_EQ(second[0]["end_kind"], "released");

  // The truth: epochs 1 and 2 of the key at the lease store, the second granted after the first
  // ended, and held by instance-2.
  const auto epochs = where(t["epochs"], "node", node_id(run, "lease-store"));
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_EQ(epochs[0]["token"], 1);
  EXPECT_EQ(epochs[1]["token"], 2);
  EXPECT_EQ(epochs[1]["holder"], "instance-2");
  EXPECT_LE(epochs[0]["ended_ns"].get<std::int64_t>(), epochs[1]["granted_ns"].get<std::int64_t>());
  // The holder's belief of token 1 never outlasts the store's lease (conservative belief).
  EXPECT_LE(first[0]["confirmed_until_ns"].get<std::int64_t>(),
            epochs[0]["valid_until_ns"].get<std::int64_t>());
}

// A renewal the store granted moves its epoch's end: an epoch is drawn valid until its last
// granted renewal's expiry (a refused one moves nothing), not its grant's. slow-renewal-reply
// seed 1: kleppmann-fencing's leases end before their first renewal.
TEST(TimelineTest, ARenewedEpochIsValidUntilItsLastRenewal) {
  const Captured run = testing::run_and_capture("slow-renewal-reply", 1);
  std::size_t renewed = 0;
  for (const auto& epoch : run.timeline["epochs"]) {
    std::optional<std::int64_t> last;
    for (const auto& renewal : epoch["renewals"]) {
      if (renewal.contains("until_ns")) last = renewal["until_ns"].get<std::int64_t>();
    }
    if (!last) continue;
    ++renewed;
    EXPECT_EQ(epoch["valid_until_ns"].get<std::int64_t>(), *last) << epoch.dump();
    const std::int64_t ttl = run.timeline["ttl_ns"].get<std::int64_t>();
    EXPECT_GT(*last, epoch["granted_ns"].get<std::int64_t>() + ttl) << epoch.dump();
  }
  EXPECT_GT(renewed, 0u) << "no epoch renewed in the run";
}

// An epoch the store released ends at its release, and stays ended there when the run ends: the
// last epoch of a key (kleppmann-fencing's token 2, released and never superseded) is drawn
// released at the release event, not expired at its expiry nor held to the run's end.
TEST(TimelineTest, AReleasedEpochEndsAtItsReleaseEvenWhenItIsTheKeysLast) {
  const Captured& run = testing::passing_kleppmann();
  const auto& t = run.timeline;
  std::size_t releases = 0;
  for (const auto& event : t["events"]) {
    if (event.value("kind", "") != "store-lease-released") continue;
    ++releases;
    const auto epochs = where(t["epochs"], "token", event["token"]);
    ASSERT_EQ(epochs.size(), 1u) << event.dump();
    EXPECT_EQ(epochs[0]["end_kind"], "released") << epochs[0].dump();
    EXPECT_EQ(epochs[0]["end_event"], event["i"]) << epochs[0].dump();
    EXPECT_EQ(epochs[0]["ended_ns"], event["t"]) << epochs[0].dump();
  }
  EXPECT_EQ(releases, 1u);
  ASSERT_EQ(t["epochs"].size(), 2u);
  EXPECT_EQ(t["epochs"][1]["end_kind"], "released");
}

TEST(TimelineTest, SinkWritesFaultsAndMarksAreDrawnWhereTheyHappened) {
  const Captured& run = testing::passing_kleppmann();
  const auto& t = run.timeline;
  const auto writes = where(t["writes"], "node", node_id(run, "payments"));
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0]["token"], 2);
  EXPECT_EQ(writes[0]["outcome"], "applied");
  EXPECT_EQ(writes[1]["token"], 1);
  EXPECT_EQ(writes[1]["outcome"], "refused");
  EXPECT_EQ(writes[1]["high_water"], 2);
  // Holder 1's write left before its stall and got the refusal as its reply.
  const auto attempts = where(t["attempts"], "node", node_id(run, "instance-1"));
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0]["reply"], "refused");
  ASSERT_EQ(t["faults"].size(), 1u);
  const auto& stall = t["faults"][0];
  EXPECT_EQ(stall["kind"], "stall");
  EXPECT_EQ(stall["node"], node_id(run, "instance-1"));
  EXPECT_GT(stall["end_ns"].get<std::int64_t>(), stall["start_ns"].get<std::int64_t>());
  EXPECT_EQ(t["events"][stall["end_event"].get<std::size_t>()]["kind"], "node-resumed");
  // What the stall did, from the world's fault ledger: holder 1's renewals waited it out.
  const std::string effect = stall["effect"];
  EXPECT_TRUE(effect.starts_with("stall instance-1: acted: ")) << effect;
  EXPECT_EQ(stall["acted"], true);
  ASSERT_EQ(t["phases"].size(), 2u);
  EXPECT_EQ(t["phases"][1]["name"], "quiet");
  // Marks counted over the history (most are read from it, not recorded as mark events).
  EXPECT_EQ(t["marks_count"]["stale-write-refused"], 1);
  EXPECT_TRUE(t["marks"].is_array());
  EXPECT_TRUE(t["violations"].empty());
}

TEST(TimelineTest, ViolationPointsAtTheStaleWriteTheSinkAccepted) {
  const Captured& run = testing::failing_kleppmann();
  const auto& t = run.timeline;
  ASSERT_FALSE(t["violations"].empty());
  const auto& violation = t["violations"][0];
  EXPECT_EQ(violation["invariant"], "sink-monotonicity");
  ASSERT_FALSE(violation["refs"].empty());
  // The last event it points at is the sink accepting token 1 after token 2, drawn at its time.
  const auto& last = violation["refs"].back();
  const auto accepted = where(t["writes"], "event", last["event"]);
  ASSERT_EQ(accepted.size(), 1u);
  EXPECT_EQ(accepted[0]["token"], 1);
  EXPECT_NE(accepted[0]["outcome"], "refused");
  EXPECT_EQ(accepted[0]["high_water"], 2);
  EXPECT_EQ(violation["at_ns"], accepted[0]["t"]);
  EXPECT_EQ(last["node"], node_id(run, "payments"));
}

TEST(TimelineTest, ShrinkContextIsCarried) {
  TimelineContext context;
  context.replay_command = "fencesim replay shrunk.json";
  context.shrunk_plan = sim::FaultPlan{};
  context.shrink_removed = {"removed fault 1: stall instance-1"};
  const Captured run = testing::run_and_capture("kleppmann-fencing", 1, "accept-stale", context);
  EXPECT_TRUE(run.timeline["shrunk_plan"].is_array());
  EXPECT_TRUE(run.timeline["shrunk_plan"].empty());
  EXPECT_EQ(run.timeline["shrink_removed"][0], "removed fault 1: stall instance-1");
  EXPECT_EQ(run.timeline["replay_command"], "fencesim replay shrunk.json");
}

TEST(TimelineTest, SameRunGivesTheSameJson) {
  const Captured again = testing::run_and_capture("kleppmann-fencing", 1, "accept-stale",
                                                  TimelineContext{"fencesim replay "
                                                                  "fencesim-replay-kleppmann-"
                                                                  "fencing-1.json"});
  EXPECT_EQ(again.timeline.dump(), testing::failing_kleppmann().timeline.dump());
  const Captured mix_a = testing::run_and_capture("nightly-mix", 3);
  const Captured mix_b = testing::run_and_capture("nightly-mix", 3);
  EXPECT_EQ(mix_a.timeline.dump(), mix_b.timeline.dump());
  EXPECT_FALSE(mix_a.timeline["beliefs"].empty());
  EXPECT_FALSE(mix_a.timeline["epochs"].empty());
}

// A history past the table's 20,000 events: the table keeps the 500 events each side of every
// violation's event, then the earliest ones up to 20,000, and counts the rest as omitted (round
// 30b: a table that kept only the events before the violation passed every test, each of whose
// histories was short).
TEST(TimelineTest, ALongHistorysTableKeepsBothSidesOfTheViolationThenTheEarliest) {
  sim::World world{sim::WorldOptions{}};
  for (int i = 0; i < 25'000; ++i) {
    sim::HistoryEvent e;
    e.time_ns = i;
    e.world = sim::WorldEventKind::kMeasure;
    e.detail = "tick 1";
    world.adopt_event(std::move(e));
  }
  properties::RunReport report;
  report.events = 25'000;
  report.violations.push_back(properties::Violation{"stopped-holder", "a send", {21'000}});
  const nlohmann::ordered_json t = timeline_json(world, report, TimelineContext{});
  const nlohmann::ordered_json& table = t["events"];
  ASSERT_EQ(table.size(), 20'000u);
  EXPECT_EQ(t["events_omitted"], 5'000);
  // The earliest 18,999 (0..18998), then 20500..21500 around the violation.
  EXPECT_EQ(table[18'998]["i"], 18'998);
  EXPECT_EQ(table[18'999]["i"], 20'500);
  EXPECT_EQ(table[19'499]["i"], 21'000);
  EXPECT_EQ(table[19'999]["i"], 21'500);
}

}  // namespace
}  // namespace fencesim::reports::timeline_test
