// Each invariant's checker on small hand-made histories: a history that breaks it is reported,
// naming the events that break it, and a clean one passes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "properties/invariants_builtin.h"
#include "properties/run.h"
#include "properties/tests/world_of.h"
#include "runtime/errors.h"

namespace fencesim::properties::invariants_test {
namespace {

using runtime::EventKind;
using runtime::kMillisecond;
using runtime::kSecond;

constexpr sim::NodeId kStore = 1;
constexpr sim::NodeId kNodeA = 2;
constexpr sim::NodeId kNodeB = 3;
constexpr sim::NodeId kSink = 4;
constexpr runtime::Nanoseconds kTtl = 30 * kSecond;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const std::string kFenced(runtime::ExecutionFencedError::kCode);
const std::string kLost(runtime::ExecutionLeaseLostError::kCode);

// A key's scope key as these stories spell it: the test's own percent-encoding of each part (bytes
// outside encodeURIComponent's unreserved set as %XX), never the runtime's make_scope_key, which is
// code under test: a history built by the code it judges proves only that it agrees with itself.
std::string scope_key_of(const runtime::LeaseKey& key) {
  const auto encode = [](const std::string& part) {
    std::string out;
    for (const char ch : part) {
      const bool kept = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                        (ch >= '0' && ch <= '9') ||
                        std::string_view("-_.!~*'()").find(ch) != std::string_view::npos;
      if (kept) {
        out += ch;
      } else {
        out += fmt::format("%{:02X}", static_cast<unsigned char>(ch));
      }
    }
    return out;
  };
  return encode(key.tenant_id) + ":" + encode(key.lease_execution_id);
}

// A history written by hand, one event at a time; each event's index is its position.
class Story {
 public:
  // An instance-side event of `holder` (node A for "a", node B otherwise).
  std::uint64_t holder(EventKind kind, const std::string& holder, runtime::Token token,
                       std::string step = {}, std::string detail = {}, std::int64_t value = 0,
                       const runtime::LeaseKey& key = kTree) {
    return add(holder == "a" ? kNodeA : kNodeB, {kind, holder, key, scope_key_of(key),
                                                 token, std::move(step), std::move(detail), value});
  }
  // A lease-store event: holder is the lease's holder, value its expiry on the store's wall.
  std::uint64_t store(EventKind kind, const std::string& holder, runtime::Token token,
                      std::int64_t value = 0, std::string step = {},
                      const runtime::LeaseKey& key = kTree) {
    return add(kStore, {kind, holder, key, {}, token, std::move(step), {}, value});
  }
  std::uint64_t sink(EventKind kind, runtime::Token token, std::int64_t high_water,
                     const runtime::LeaseKey& key = kTree) {
    return add(kSink,
               {kind, "payments", {}, scope_key_of(key), token, {}, "idem", high_water});
  }
  // Moves true time on; every clock in a story reads true time unless an event says otherwise.
  void at(std::int64_t time_ns) { time_ns_ = time_ns; }
  std::uint64_t add(sim::NodeId node, runtime::RuntimeEvent event) {
    return add(node, std::move(event), time_ns_);
  }
  std::uint64_t add(sim::NodeId node, runtime::RuntimeEvent event, std::int64_t monotonic_ns) {
    sim::HistoryEvent e;
    e.index = events_.size();
    e.time_ns = time_ns_;
    e.node = node;
    e.local_monotonic_ns = monotonic_ns;
    e.runtime = std::move(event);
    events_.push_back(std::move(e));
    return events_.back().index;
  }
  const Events& events() const { return events_; }

 private:
  Events events_;
  std::int64_t time_ns_ = 0;
};

// A step of holder "a" under `token` that runs, checkpoints and ends ok.
void clean_step(Story& s, runtime::Token token, const std::string& path) {
  s.holder(EventKind::kStepStarted, "a", token, path);
  s.holder(EventKind::kCheckpointSent, "a", token, path);
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", token,
          static_cast<std::int64_t>(token), path);
  s.holder(EventKind::kCheckpointCommitted, "a", token, path);
  s.holder(EventKind::kStepEnded, "a", token, path, "ok");
}

std::string all(const std::vector<Violation>& found) {
  std::string text;
  for (const Violation& v : found) text += v.invariant + ": " + v.message + "\n";
  return text;
}

void expect_one(const std::vector<Violation>& found, std::string_view invariant,
                const std::vector<std::uint64_t>& events) {
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found.front().invariant, invariant);
  EXPECT_EQ(found.front().events, events) << found.front().message;
}

// --- conditional-renewal ---

TEST(ConditionalRenewal, ARenewalOfALiveLeasePasses) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.store(EventKind::kStoreLeaseRenewed, "a", 1, 10 * kSecond + kTtl);
  s.store(EventKind::kStoreLeaseRenewed, "a", 1, 39 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(ConditionalRenewal, ALateRenewalOfAnExpiredLeaseIsReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  // The store's clock read 30 s: the lease granted at 0 s had just expired.
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 30 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {granted, renewed});
}

// As a sweep judges it: the world's own ttl (20 s here, not the default) tells the store's clock
// at a renewal from the renewal's new expiry.
TEST(ConditionalRenewal, AWorldIsJudgedByItsOwnTtl) {
  sim::WorldOptions options;
  options.lease.ttl_ns = 20 * kSecond;
  Story in_time;
  in_time.store(EventKind::kStoreLeaseGranted, "a", 1, 20 * kSecond);
  in_time.store(EventKind::kStoreLeaseRenewed, "a", 1, 40 * kSecond - 1);  // at 20 s less 1 ns
  EXPECT_TRUE(testing::judged_in_world(ConditionalRenewal{}, in_time.events(), options).empty());
  Story late;
  late.store(EventKind::kStoreLeaseGranted, "a", 1, 20 * kSecond);
  late.store(EventKind::kStoreLeaseRenewed, "a", 1, 40 * kSecond);  // at 20 s: just expired
  EXPECT_EQ(testing::judged_in_world(ConditionalRenewal{}, late.events(), options).size(), 1U);
}

TEST(ConditionalRenewal, ARenewalAfterReleaseIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto released = s.store(EventKind::kStoreLeaseReleased, "a", 1, 1 * kSecond);
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 2 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {released, renewed});
}

TEST(ConditionalRenewal, AStaleHoldersLateRenewalOfTheNextLeaseIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto taken = s.store(EventKind::kStoreLeaseGranted, "b", 2, 31 * kSecond + kTtl);
  // The store's renewal event names the requester: "a" with its stale token 1, while "b" holds 2.
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 40 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {taken, renewed});
}

// A token from the future: the holder of epoch 1 renewed under token 2, which the store never
// granted. The holder matches, the token does not: reported as a stale token would be.
TEST(ConditionalRenewal, ARenewalUnderATokenAboveTheEpochIsReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "a", 2, 10 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {granted, renewed});
}

TEST(ConditionalRenewal, ARenewalByAnotherHolderAtTheEpochIsReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "b", 1, 10 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {granted, renewed});
}

// A renewal of a key the store never granted extends nothing that was anyone's (a site no test
// reached; tools/quiet-oracles.py --sites).
TEST(ConditionalRenewal, ARenewalOfALeaseNeverGrantedIsReported) {
  Story s;
  const auto renewed = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 2 * kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {renewed});
}

TEST(ConditionalRenewal, ALostLeaseNeverComesBackToItsHolder) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  const auto renewed = s.holder(EventKind::kLeaseRenewed, "a", 1, {}, {}, kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  expect_one(found, ConditionalRenewal{}.name(), {lost, renewed});
}

// Every report, not only the first: two renewals that each break the rule are both reported, each
// naming the event that set the state it broke (tools/quiet-oracles.py --sites --first-only: an
// oracle stopped at its first report, or a judge returning before it records the renewal it
// reported, passed every test above).
TEST(ConditionalRenewalEveryReport, TwoRenewalsAfterReleaseAreBothReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto released = s.store(EventKind::kStoreLeaseReleased, "a", 1, 1 * kSecond);
  const auto first = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 2 * kSecond + kTtl);
  const auto second = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 3 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{released, first}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{first, second}));
}

TEST(ConditionalRenewalEveryReport, TwoLateRenewalsAreBothReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  // At 30 s the grant had just expired; at 60 s so had the late renewal's own 30 s.
  const auto first = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 30 * kSecond + kTtl);
  const auto second = s.store(EventKind::kStoreLeaseRenewed, "a", 1, 60 * kSecond + kTtl);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{granted, first}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{first, second}));
}

TEST(ConditionalRenewalEveryReport, TwoRenewalsBelievedAfterTheLossAreBothReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  const auto first = s.holder(EventKind::kLeaseRenewed, "a", 1, {}, {}, kTtl);
  const auto second = s.holder(EventKind::kLeaseRenewed, "a", 1, {}, {}, kTtl + kSecond);
  std::vector<Violation> found;
  check_conditional_renewal(s.events(), kTtl, found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{lost, first}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{lost, second}));
}

// --- conservative-belief ---

// The store grants at 1 ms (its clock reads true time); the holder sent its take at 0 ms and
// believes `confirmed_until_ns` on its own monotonic clock.
Story take_story(runtime::Nanoseconds confirmed_until_ns) {
  Story s;
  s.at(1 * kMillisecond);
  s.store(EventKind::kStoreLeaseGranted, "a", 1, 1 * kMillisecond + kTtl);
  s.at(2 * kMillisecond);
  s.holder(EventKind::kLeaseTaken, "a", 1, {}, {}, confirmed_until_ns);
  return s;
}

TEST(ConservativeBelief, ABeliefCountedFromTheSendTimeWithAMarginPasses) {
  const runtime::LeasePolicy policy;
  const Story s = take_story(policy.confirmed_until_ns(0));
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, true, {}}, found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(ConservativeBelief, ABeliefCountedFromTheReplyIsReported) {
  const Story s = take_story(2 * kMillisecond + kTtl);
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, true, {}}, found);
  expect_one(found, ConservativeBelief{}.name(), {0, 1});
}

// The tolerance is clock arithmetic's rounding, a few nanoseconds: a holder believing its lease a
// microsecond past the store's end (clocks at true time, nothing to round) outlasts the store and
// is reported, while one within the rounding of the end passes (red team 35a-04: a tolerance of
// 4 us let a belief up to 4 us past the store's expiry pass).
TEST(ConservativeBelief, ABeliefAMicrosecondPastTheStoresEndIsReported) {
  const runtime::Nanoseconds store_end_ns = 1 * kMillisecond + kTtl;
  std::vector<Violation> found;
  check_conservative_belief(take_story(store_end_ns + 2).events(), RunFacts{kTtl, true, {}}, found);
  EXPECT_TRUE(found.empty()) << all(found);
  check_conservative_belief(take_story(store_end_ns + kMillisecond / 1000).events(),
                            RunFacts{kTtl, true, {}}, found);
  expect_one(found, ConservativeBelief{}.name(), {0, 1});
}

// The rounding allowed is 4 ns, the conversions' own (a floor or a round-up at each end of two):
// 5 ns past the store's end is already past it (red team 36b-08 allowed 16 ns).
TEST(ConservativeBelief, TheRoundingAllowedIsFourNanoseconds) {
  const runtime::Nanoseconds store_end_ns = 1 * kMillisecond + kTtl;
  std::vector<Violation> found;
  check_conservative_belief(take_story(store_end_ns + 4).events(), RunFacts{kTtl, true, {}}, found);
  EXPECT_TRUE(found.empty()) << all(found);
  check_conservative_belief(take_story(store_end_ns + 5).events(), RunFacts{kTtl, true, {}}, found);
  expect_one(found, ConservativeBelief{}.name(), {0, 1});
}

TEST(ConservativeBelief, AWorldsBeliefCountedFromTheReplyIsReported) {
  // As a sweep judges it: the world's facts (its terms, its assumptions) from the world itself.
  EXPECT_EQ(
      testing::judged_in_world(ConservativeBelief{}, take_story(2 * kMillisecond + kTtl).events())
          .size(),
      1U);
  const runtime::LeasePolicy policy;
  EXPECT_TRUE(testing::judged_in_world(ConservativeBelief{},
                                       take_story(policy.confirmed_until_ns(0)).events())
                  .empty());
}

TEST(ConservativeBelief, ASlowHolderClockStretchesItsBeliefInTrueTime) {
  // 10 ms of margin is enough at the true rate, not when the holder's clock runs 1000 ppm slow:
  // its 30 s last 30.03 s of true time.
  const Story s = take_story(kTtl - 10 * kMillisecond);
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, true, {}}, found);
  EXPECT_TRUE(found.empty()) << all(found);
  const RunFacts slow{kTtl, true, {{kNodeA, {DriftChange{0, -1000}}}}};
  check_conservative_belief(s.events(), slow, found);
  expect_one(found, ConservativeBelief{}.name(), {0, 1});
}

TEST(ConservativeBelief, RunsOutsideTheAssumptionsAreNotJudgedOnTime) {
  const Story s = take_story(2 * kMillisecond + kTtl);
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, false, {}}, found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(ConservativeBelief, ABeliefTheStoreNeverGrantedIsReported) {
  Story s;
  const auto taken = s.holder(EventKind::kLeaseTaken, "a", 1, {}, {}, 1 * kSecond);
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto renewed = s.holder(EventKind::kLeaseRenewed, "a", 1, {}, {}, 1 * kSecond);
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, true, {}}, found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{taken});
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{1, renewed}));  // never renewed
}

// The store granted token 1 to b; a believing it holds token 1 believes a lease that is b's (the
// one report of this oracle no test reached: tools/quiet-oracles.py --sites found it quiet).
TEST(ConservativeBelief, ABeliefInALeaseTheStoreHoldsForAnotherIsReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "b", 1, kTtl);
  const auto taken = s.holder(EventKind::kLeaseTaken, "a", 1, {}, {}, 1 * kSecond);
  std::vector<Violation> found;
  check_conservative_belief(s.events(), RunFacts{kTtl, true, {}}, found);
  expect_one(found, ConservativeBelief{}.name(), {granted, taken});
}

TEST(ConservativeBelief, TrueTimeFollowsEachRateChange) {
  // From 10 s the clock runs 1000 ppm fast: 20 s of it past 10 s take 20 s / 1.001 of true time.
  const RunFacts facts{kTtl, true, {{kNodeA, {DriftChange{10 * kSecond, 1000}}}}};
  EXPECT_EQ(true_time_when(facts, kNodeA, 0, 0, 10 * kSecond), 10 * kSecond);
  EXPECT_EQ(true_time_when(facts, kNodeA, 0, 0, 30 * kSecond),
            10 * kSecond + (20 * kSecond * 1000 + 1000) / 1001);
  EXPECT_EQ(true_time_when(facts, kNodeB, 5, 5, 30 * kSecond), 30 * kSecond);
}

// --- stale-step-never-succeeds ---

TEST(StaleStepNeverSucceeds, AStepThatCommittedUnderItsTokenEndsOk) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  clean_step(s, 1, "charge");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(StaleStepNeverSucceeds, AStepWhoseLeaseExpiredLocallyMustNotEndOk) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, lost, ended});
}

// The first loss of a token is the one that counts: a step that ended ok after its holder lost
// the token is stale even when the holder reports the token's end again afterwards (the release
// at its pass's end). Read by the latest report, the token was lost only after the step ended.
TEST(StaleStepNeverSucceeds, ALaterReportOfTheTokensEndDoesNotHideTheFirstLoss) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  s.holder(EventKind::kLeaseReleased, "a", 1);
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, lost, ended});
}

// A step may end ok only once the store committed its checkpoint: a holder that reported success
// on the send alone reports a step whose outcome nobody recorded (a site no test reached;
// tools/quiet-oracles.py --sites).
TEST(StaleStepNeverSucceeds, AStepEndingOkWithoutAStoreCommitIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, ended});
}

TEST(StaleStepNeverSucceeds, AStepOvertakenByALaterTakeMustNotEndOk) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  const auto taken = s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto committed =
      s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, taken, committed, ended});
}

// The first later grant is the one that counts: a take of token 3 after the commit does not
// hide the take of token 2 before it (red team 40c-07: the last later grant was read).
TEST(StaleStepNeverSucceeds, AnOvertakingTakeIsNotHiddenByAnotherAfterTheCommit) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  const auto taken = s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto committed =
      s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "charge");
  s.store(EventKind::kStoreLeaseGranted, "c", 3, kTtl);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, taken, committed, ended});
}

TEST(StaleStepNeverSucceeds, ACheckpointThatSettlesAfterLocalExpiryCannotEndOk) {
  // The store still had the token's epoch when the checkpoint arrived, so the commit stands; but
  // the holder's lease had expired before it knew, so the step must not report success (as a
  // fenced write that settles after expiry).
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  EXPECT_EQ(found.size(), 1u) << all(found);
}

TEST(StaleStepNeverSucceeds, AStaleStepEndsWithALeaseLostCode) {
  for (const std::string& outcome : {kLost, kFenced, std::string("error")}) {
    Story s;
    s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
    s.holder(EventKind::kStepStarted, "a", 1, "charge");
    s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
    s.holder(EventKind::kStepEnded, "a", 1, "charge", outcome);
    std::vector<Violation> found;
    check_stale_step_never_succeeds(s.events(), found);
    if (outcome == "error") {
      expect_one(found, StaleStepNeverSucceeds{}.name(), {1, 2, 3});
    } else {
      EXPECT_TRUE(found.empty()) << outcome << ": " << all(found);
    }
  }
}

// Only the lease-lost family is a stale step's end: a cancel the holder learns of after it lost
// the token is still an end that claims the lease was held (red team round 31b, bug 21: any
// execution.* code accepted, and the stale step ending cancelled went unreported).
TEST(StaleStepNeverSucceeds, AStaleStepEndingCancelledIsReported) {
  const std::string cancelled(runtime::ExecutionCancelledError::kCode);
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", cancelled);
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, lost, ended});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found.front().message.find("ended with 'execution.cancelled'"), std::string::npos)
      << found.front().message;
}

// The holder's own release ends its token as a loss does: a step that ends ok after it (its
// checkpoint committed before the release) is stale (red team round 31b, bug 30: read_steps
// took only kLeaseLost as the token's end).
TEST(StaleStepNeverSucceeds, AStepEndingOkAfterItsHolderReleasedTheTokenIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kCheckpointSent, "a", 1, "charge");
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  const auto released = s.holder(EventKind::kLeaseReleased, "a", 1);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, released, ended});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found.front().message.find("(lease-released)"), std::string::npos)
      << found.front().message;
}

// A release ends the token for a failing step as it does for a succeeding one: a step still
// running when its holder released the token (the pass's end giving the lease back under a
// straggler) and then failing with its own error ends stale, so with execution.lease-lost
// (red team 35a-07: a failed step ended after a release was not judged).
TEST(StaleStepNeverSucceeds, AStepFailingAfterItsHolderReleasedTheTokenMustEndLost) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto released = s.holder(EventKind::kLeaseReleased, "a", 1);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "error");
  std::vector<Violation> found;
  check_stale_step_never_succeeds(s.events(), found);
  expect_one(found, StaleStepNeverSucceeds{}.name(), {started, released, ended});
  // Ending lost after the release is what a stale step does.
  Story lost_end;
  lost_end.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  lost_end.holder(EventKind::kStepStarted, "a", 1, "charge");
  lost_end.holder(EventKind::kLeaseReleased, "a", 1);
  lost_end.holder(EventKind::kStepEnded, "a", 1, "charge", kLost);
  found.clear();
  check_stale_step_never_succeeds(lost_end.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

// --- stopped-holder ---

TEST(StoppedHolder, WritesBeforeTheRefusalAndUnderALaterTokenPass) {
  Story s;
  s.holder(EventKind::kWriteSent, "a", 1, "charge");
  s.holder(EventKind::kWriteSent, "a", 1, "charge");
  s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  s.holder(EventKind::kWriteSent, "a", 3, "charge");
  std::vector<Violation> found;
  check_stopped_holder(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(StoppedHolder, AWriteAfterAFencedRefusalIsReported) {
  Story s;
  s.holder(EventKind::kWriteSent, "a", 1, "charge");
  const auto refused = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  const auto again = s.holder(EventKind::kWriteSent, "a", 1, "ship");
  std::vector<Violation> found;
  check_stopped_holder(s.events(), found);
  expect_one(found, StoppedHolder{}.name(), {refused, again});
}

TEST(StoppedHolder, ACheckpointAfterAFencedCheckpointRefusalIsReported) {
  Story s;
  const auto refused = s.holder(EventKind::kCheckpointRefused, "a", 1, "charge", {}, 2);
  const auto again = s.holder(EventKind::kCheckpointSent, "a", 1, "ship");
  std::vector<Violation> found;
  check_stopped_holder(s.events(), found);
  expect_one(found, StoppedHolder{}.name(), {refused, again});
}

// A holder that gave its lease back (a yield, its pass's end) is stopped as a refused one is: a
// write sent under the released token is reported, the release named as what stopped it (round
// 30b: the oracle stopped a holder on a refusal or a loss only, and no test sent after a release).
TEST(StoppedHolder, AWriteAfterItsHolderReleasedTheTokenIsReported) {
  Story s;
  s.holder(EventKind::kWriteSent, "a", 1, "charge");
  const auto released = s.holder(EventKind::kLeaseReleased, "a", 1);
  const auto again = s.holder(EventKind::kWriteSent, "a", 1, "ship");
  s.holder(EventKind::kWriteSent, "a", 2, "ship");  // its next token is its own
  std::vector<Violation> found;
  check_stopped_holder(s.events(), found);
  expect_one(found, StoppedHolder{}.name(), {released, again});
}

// Every kind of send under a stopped token is reported, not only writes: a confirm, and a call to a
// system that cannot check tokens (red team 36b-03 no longer counted the unchecked call, the one
// send a token cannot refuse afterwards).
TEST(StoppedHolder, AnUncheckedCallOrAConfirmAfterARefusalIsReported) {
  for (const EventKind kind : {EventKind::kUncheckedCallSent, EventKind::kConfirmSent}) {
    Story s;
    const auto refused = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
    const auto again = s.holder(kind, "a", 1, "notify");
    std::vector<Violation> found;
    check_stopped_holder(s.events(), found);
    expect_one(found, StoppedHolder{}.name(), {refused, again});
  }
}

// Every report, not only the first: two holders going on after their refusals are both reported
// (tools/quiet-oracles.py --sites --first-only: the oracle stopped at its first report passed every
// test above, each of which had one holder going on).
TEST(StoppedHolderEveryReport, TwoHoldersSendingAfterTheirRefusalsAreBothReported) {
  Story s;
  const auto refused_a = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  const auto refused_b = s.holder(EventKind::kWriteRefused, "b", 2, "charge", "idem", 3);
  const auto again_a = s.holder(EventKind::kWriteSent, "a", 1, "ship");
  const auto again_b = s.holder(EventKind::kWriteSent, "b", 2, "ship");
  std::vector<Violation> found;
  check_stopped_holder(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{refused_a, again_a}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{refused_b, again_b}));
}

// --- classification ---

TEST(Classification, AStepThatMetARefusalEndsFenced) {
  Story s;
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");  // expiry first: still fenced
  const auto refused = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  expect_one(found, Classification{}.name(), {started, refused, ended});
}

// A step that met its own refusal and still ended "ok" is reported as well: the refusal is final,
// whatever the body did with it (red team 37a-09 let every "ok" step go before looking at its
// refusal, and every sweep passed: the runtime never ends such a step ok).
TEST(Classification, AStepThatMetARefusalAndEndedOkIsReported) {
  for (const EventKind refusal : {EventKind::kWriteRefused, EventKind::kCheckpointRefused}) {
    Story s;
    const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
    const auto refused = s.holder(refusal, "a", 1, "charge", "idem", 2);
    const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
    std::vector<Violation> found;
    check_classification(s.events(), found);
    expect_one(found, Classification{}.name(), {started, refused, ended});
  }
}

// A step's checkpoint refused by a later token is the step's own refusal, as a refused write is
// (red team 36b-24 read only refused writes as a step run's own refusal).
TEST(Classification, AStepWhoseCheckpointWasRefusedEndsFenced) {
  Story s;
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto refused = s.holder(EventKind::kCheckpointRefused, "a", 1, "charge", {}, 2);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  expect_one(found, Classification{}.name(), {started, refused, ended});
}

TEST(Classification, ASiblingStepEndsFencedWhenTheTokenWasFirstLostToAFence) {
  Story s;
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "audit/record");
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  const auto lost = s.holder(EventKind::kLeaseLost, "a", 1, {}, "fenced");
  s.holder(EventKind::kStepEnded, "a", 1, "charge", kFenced);
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "audit/record", kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  expect_one(found, Classification{}.name(), {started, lost, ended});
}

TEST(Classification, AnExpiryBeforeTheFenceLeavesASiblingLeaseLost) {
  Story s;
  s.holder(EventKind::kStepStarted, "a", 1, "audit/record");
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  s.holder(EventKind::kStepEnded, "a", 1, "charge", kFenced);
  s.holder(EventKind::kStepEnded, "a", 1, "audit/record", kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(Classification, APassThatMetAFenceIsClassifiedFenced) {
  for (const std::string& code : {kFenced, kLost}) {
    Story s;
    const auto pass = s.holder(EventKind::kTreeStarted, "a", 1, {}, "order");
    s.holder(EventKind::kStepStarted, "a", 1, "charge");
    const auto refused = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
    s.holder(EventKind::kStepEnded, "a", 1, "charge", kFenced);
    const auto classified = s.holder(EventKind::kErrorClassified, "a", 1, {}, code);
    std::vector<Violation> found;
    check_classification(s.events(), found);
    if (code == kFenced) {
      EXPECT_TRUE(found.empty()) << all(found);
    } else {
      expect_one(found, Classification{}.name(), {pass, refused, classified});
    }
  }
}

// A step that ended fenced is the pass's fence sign on its own, with no refusal or fenced loss
// reported in the pass (a body that built the refusal itself, of a downstream's token): red team
// 32b (judge_passes taking refusals alone) passed every test above, each of which had a refusal.
TEST(Classification, APassWhoseStepEndedFencedWithoutARefusalIsClassifiedFenced) {
  Story s;
  const auto pass = s.holder(EventKind::kTreeStarted, "a", 1, {}, "order");
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", kFenced);
  const auto classified = s.holder(EventKind::kErrorClassified, "a", 1, {}, kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  expect_one(found, Classification{}.name(), {pass, ended, classified});
}

// Swarm seed 1096 (pct): a pass ended lease-lost at its local expiry with its write still in
// flight; the holder took the tree again, and the old write's refusal landed in the new pass.
TEST(Classification, ARefusalOfAnEarlierPassesTokenIsNotTheNewPasses) {
  Story s;
  s.holder(EventKind::kTreeStarted, "a", 1, {}, "order");
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kWriteSent, "a", 1, "charge", "idem");
  s.holder(EventKind::kLeaseLost, "a", 1, {}, "local-expiry");
  s.holder(EventKind::kStepEnded, "a", 1, "charge", kLost);
  s.holder(EventKind::kErrorClassified, "a", 1, {}, kLost);
  const auto second = s.holder(EventKind::kTreeStarted, "a", 4, {}, "order");
  s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  s.holder(EventKind::kErrorClassified, "a", 4, {}, kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
  // A refusal of the new pass's own token (or of one it retook after a yield) still counts.
  const auto refused = s.holder(EventKind::kWriteRefused, "a", 5, "charge", "idem", 6);
  const auto again = s.holder(EventKind::kErrorClassified, "a", 5, {}, kLost);
  check_classification(s.events(), found);
  expect_one(found, Classification{}.name(), {second, refused, again});
}

// Every report, not only the first: two passes, of two holders, each met a fence and each was
// classified lost; both are reported (tools/quiet-oracles.py --sites --first-only: the oracle
// stopped at its first report passed every test above, each of which had one such pass).
TEST(ClassificationEveryReport, TwoPassesThatMetAFenceClassifiedLostAreBothReported) {
  Story s;
  const auto pass_a = s.holder(EventKind::kTreeStarted, "a", 1, {}, "order");
  const auto refused_a = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  const auto pass_b = s.holder(EventKind::kTreeStarted, "b", 2, {}, "order");
  const auto refused_b = s.holder(EventKind::kWriteRefused, "b", 2, "charge", "idem", 3);
  const auto classified_a = s.holder(EventKind::kErrorClassified, "a", 1, {}, kLost);
  const auto classified_b = s.holder(EventKind::kErrorClassified, "b", 2, {}, kLost);
  std::vector<Violation> found;
  check_classification(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{pass_a, refused_a, classified_a}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{pass_b, refused_b, classified_b}));
}

// --- fence-scoping ---

TEST(FenceScoping, AWriteFromARunningStepPasses) {
  Story s;
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  s.holder(EventKind::kWriteSent, "a", 1, "charge");
  s.holder(EventKind::kConfirmSent, "a", 1, "charge");
  s.holder(EventKind::kWithdrawal, "a", 1, "charge", "fenced");
  s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  std::vector<Violation> found;
  check_fence_scoping(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(FenceScoping, AFenceKeptPastItsStepIsReported) {
  Story s;
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  const auto late = s.holder(EventKind::kWriteSent, "a", 1, "charge");
  std::vector<Violation> found;
  check_fence_scoping(s.events(), found);
  expect_one(found, FenceScoping{}.name(), {ended, late});
}

// Every call made through a fence kept past its step is reported: a write, a confirm and an
// unchecked call alike (round 30b: an oracle that judged writes and confirms only passed every
// test above, none of which made an unchecked call).
TEST(FenceScoping, EveryKindOfCallThroughAFenceKeptPastItsStepIsReported) {
  Story s;
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto ended = s.holder(EventKind::kStepEnded, "a", 1, "charge", "ok");
  const auto write = s.holder(EventKind::kWriteSent, "a", 1, "charge");
  const auto confirm = s.holder(EventKind::kConfirmSent, "a", 1, "charge");
  const auto unchecked = s.holder(EventKind::kUncheckedCallSent, "a", 1, "charge");
  std::vector<Violation> found;
  check_fence_scoping(s.events(), found);
  ASSERT_EQ(found.size(), 3u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{ended, write}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{ended, confirm}));
  EXPECT_EQ(found[2].events, (std::vector<std::uint64_t>{ended, unchecked}));
}

TEST(FenceScoping, AWriteUnderAnotherTokenOrNoStepIsReported) {
  Story s;
  s.holder(EventKind::kStepStarted, "a", 1, "charge");
  const auto other_token = s.holder(EventKind::kWriteSent, "a", 2, "charge");
  const auto no_step = s.holder(EventKind::kWithdrawal, "a", 1, "ship", "fenced");
  std::vector<Violation> found;
  check_fence_scoping(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, std::vector<std::uint64_t>{other_token});
  EXPECT_EQ(found[1].events, std::vector<std::uint64_t>{no_step});
}

// --- no-false-fencing ---

TEST(FencedCheckpoint, CommitsUnderTheCurrentEpochPass) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 1, "charge");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(FencedCheckpoint, ACommitUnderAStaleTokenIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto stale = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "charge");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{stale}));
}

// The epoch is the one token a commit may carry: one above it is no more the key's current holder
// than one below (red team round 31b, bug 04: `token >= epoch` passed it).
TEST(FencedCheckpoint, ACommitUnderATokenAboveTheEpochIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto above = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 3, 2, "charge");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{above}));
  EXPECT_NE(found[0].message.find("under token 3 while the key's epoch was 2"), std::string::npos)
      << found[0].message;
}

// The tree's completion is a checkpoint like a step's (the stores commit it as step "<tree>"):
// committed under a stale token it is reported (red team round 31b, bug 32: skipped as the
// pass-end oracles' business, which judge the pass, not the store).
TEST(FencedCheckpoint, TheTreesCompletionCommittedUnderAStaleTokenIsReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto stale = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "<tree>");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{stale}));
  EXPECT_NE(found[0].message.find("checkpoint '<tree>'"), std::string::npos) << found[0].message;
}

// Every commit is judged, whatever path it names: one naming no step is not exempt (red team
// round 31b, bug 03: an empty path skipped as "a tree's completion"; the runtime never commits
// one, so the bug was equivalent in practice, and this pins it).
TEST(FencedCheckpoint, ACommitNamingNoStepIsJudgedLikeAnyOther) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto stale = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{stale}));
}

// Every report, not only the first: two commits under stale tokens are both reported
// (tools/quiet-oracles.py --sites --first-only: the oracle stopped at its first report passed
// every test above).
TEST(FencedCheckpointEveryReport, TwoCommitsUnderStaleTokensAreBothReported) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto charge = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "charge");
  s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 2, 2, "charge");  // the current one
  const auto ship = s.store(EventKind::kStoreCheckpointCommitted, "lease-store", 1, 2, "ship");
  std::vector<Violation> found;
  check_fenced_checkpoint(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{charge}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{ship}));
}

TEST(FenceRefusesOutsideItsStep, AFenceMisuseSeenByTheWorkloadIsReported) {
  std::vector<sim::HistoryEvent> events(2);
  events[0].index = 0;
  events[0].world = sim::WorldEventKind::kMark;
  events[0].detail = "kept-fence-refused";
  events[1].index = 1;
  events[1].world = sim::WorldEventKind::kMark;
  events[1].detail = "fence-misuse-not-refused";
  std::vector<Violation> found;
  check_fence_refuses_outside_its_step(events, found);
  ASSERT_EQ(found.size(), 1u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{1}));
}

// Every report: each misuse the workload saw is reported, not only the first.
TEST(FenceRefusesOutsideItsStepEveryReport, TwoFenceMisusesAreBothReported) {
  std::vector<sim::HistoryEvent> events(3);
  for (std::uint64_t i = 0; i < events.size(); ++i) {
    events[i].index = i;
    events[i].world = sim::WorldEventKind::kMark;
    events[i].detail = i == 1 ? "kept-fence-refused" : "fence-misuse-not-refused";
  }
  std::vector<Violation> found;
  check_fence_refuses_outside_its_step(events, found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{2}));
}

TEST(NoFalseFencing, RefusalsAfterALaterTakePass) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  s.sink(EventKind::kSinkRefused, 1, 2);
  s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 2);
  s.store(EventKind::kStoreCheckpointRefused, "lease-store", 1, 2, "charge");
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(NoFalseFencing, AHealthyHolderRefusedIsReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto sink = s.sink(EventKind::kSinkRefused, 1, 1);
  const auto checkpoint = s.store(EventKind::kStoreCheckpointRefused, "lease-store", 1, 1, "x");
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{granted, sink}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{granted, checkpoint}));
}

// A report says what the store had granted: the highest token, or that none was (the mechanical
// mutant that swapped the two, reading an empty grant, changed no verdict).
TEST(NoFalseFencing, AReportNamesTheHighestGrantOrNone) {
  Story s;
  const auto refused = s.sink(EventKind::kSinkRefused, 1, 1);
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto again = s.sink(EventKind::kSinkRefused, 1, 1);
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{refused}));
  EXPECT_NE(found[0].message.find("(none granted)"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{granted, again}));
  EXPECT_NE(found[1].message.find("(highest granted: 1)"), std::string::npos) << found[1].message;
}

TEST(NoFalseFencing, AnyInstanceSiblingsNeverRefuseEachOther) {
  // The root's later takes do not explain a refusal of its AnyInstance child, which holds a lease
  // key of its own.
  const runtime::LeaseKey child{"tenant-1", "order-1/children/invoice"};
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);
  const auto child_granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl, {}, child);
  const auto refused =
      s.holder(EventKind::kWriteRefused, "a", 1, "children/invoice/charge", "idem", 2, child);
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  expect_one(found, NoFalseFencing{}.name(), {child_granted, refused});
}

// An AnyInstance child writes under the root's scope key with a lease key of its own: the root's
// later take explains nothing about the child's refusal. A write refusal is judged by its lease
// key's grants, never by whatever shares its scope key.
TEST(NoFalseFencing, AWriteRefusalUnderASharedScopeKeyIsJudgedByItsLeaseKey) {
  const runtime::LeaseKey child{"tenant-1", "order-1/children/invoice"};
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto child_granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl, {}, child);
  s.store(EventKind::kStoreLeaseGranted, "b", 2, kTtl);  // the root's next epoch
  const auto refused =
      s.add(kNodeA, {EventKind::kWriteRefused, "a", child, scope_key_of(kTree), 1,
                     "children/invoice/charge", "idem", 2});
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  expect_one(found, NoFalseFencing{}.name(), {child_granted, refused});
}

TEST(NoFalseFencing, ACheckpointOfAReleasedLeaseMayBeRefused) {
  Story s;
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  s.store(EventKind::kStoreLeaseReleased, "a", 1, 0);
  s.store(EventKind::kStoreCheckpointRefused, "lease-store", 1, 1, "charge");
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

// Every report, not only the first: two false refusals of each kind (sink, write, checkpoint) are
// all reported, in history order (tools/quiet-oracles.py --sites --first-only: the oracle stopped
// at its first report of a kind passed every test above, each of which had one of that kind).
TEST(NoFalseFencingEveryReport, TwoFalseRefusalsOfEachKindAreAllReported) {
  Story s;
  const auto granted = s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl);
  const auto sink1 = s.sink(EventKind::kSinkRefused, 1, 1);
  const auto sink2 = s.sink(EventKind::kSinkRefused, 1, 1);
  const auto write1 = s.holder(EventKind::kWriteRefused, "a", 1, "charge", "idem", 1);
  const auto write2 = s.holder(EventKind::kWriteRefused, "a", 1, "ship", "idem", 1);
  const auto checkpoint1 = s.store(EventKind::kStoreCheckpointRefused, "lease-store", 1, 1, "a");
  const auto checkpoint2 = s.store(EventKind::kStoreCheckpointRefused, "lease-store", 1, 1, "b");
  std::vector<Violation> found;
  check_no_false_fencing(s.events(), found);
  std::vector<std::vector<std::uint64_t>> events;
  for (const Violation& v : found) events.push_back(v.events);
  EXPECT_EQ(events, (std::vector<std::vector<std::uint64_t>>{{granted, sink1},
                                                             {granted, sink2},
                                                             {granted, write1},
                                                             {granted, write2},
                                                             {granted, checkpoint1},
                                                             {granted, checkpoint2}}))
      << all(found);
}

// --- safe-yield ---

TEST(SafeYield, AYieldWhileNoStepRunsPasses) {
  Story s;
  s.holder(EventKind::kTreeStarted, "a", 1);
  clean_step(s, 1, "reserve");
  s.holder(EventKind::kRemoteWaitBegan, "a", 1, {}, {}, 2);
  s.holder(EventKind::kLeaseReleased, "a", 1);
  s.holder(EventKind::kLeaseTaken, "a", 2, {}, {}, kTtl);
  s.holder(EventKind::kRemoteWaitEnded, "a", 2);
  clean_step(s, 2, "ship");
  s.holder(EventKind::kLeaseReleased, "a", 2);
  std::vector<Violation> found;
  check_safe_yield(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(SafeYield, AYieldWhileASiblingBranchStepRunsIsReported) {
  Story s;
  s.holder(EventKind::kTreeStarted, "a", 1);
  s.holder(EventKind::kRemoteWaitBegan, "a", 1, {}, {}, 2);
  const auto branch = s.holder(EventKind::kStepStarted, "a", 1, "children/audit/prepare");
  const auto released = s.holder(EventKind::kLeaseReleased, "a", 1);
  std::vector<Violation> found;
  check_safe_yield(s.events(), found);
  expect_one(found, SafeYield{}.name(), {branch, released});
  EXPECT_NE(found.front().message.find("remote-children wait"), std::string::npos);
}

TEST(SafeYield, AStepStartedUnderAReleasedTokenIsReported) {
  Story s;
  s.holder(EventKind::kTreeStarted, "a", 1);
  const auto released = s.holder(EventKind::kLeaseReleased, "a", 1);
  const auto started = s.holder(EventKind::kStepStarted, "a", 1, "ship");
  std::vector<Violation> found;
  check_safe_yield(s.events(), found);
  expect_one(found, SafeYield{}.name(), {released, started});
}

// Every step started under a released token is reported, not only the first: two holders (each
// after its own release) and a second step of the first.
TEST(SafeYield, EveryStepStartedUnderAReleasedTokenIsReported) {
  Story s;
  s.holder(EventKind::kTreeStarted, "a", 1);
  s.holder(EventKind::kTreeStarted, "b", 2);
  const auto released_a = s.holder(EventKind::kLeaseReleased, "a", 1);
  const auto released_b = s.holder(EventKind::kLeaseReleased, "b", 2);
  const auto started_a = s.holder(EventKind::kStepStarted, "a", 1, "ship");
  const auto started_b = s.holder(EventKind::kStepStarted, "b", 2, "ship");
  const auto again_a = s.holder(EventKind::kStepStarted, "a", 1, "bill");
  std::vector<Violation> found;
  check_safe_yield(s.events(), found);
  std::vector<std::vector<std::uint64_t>> events;
  for (const Violation& v : found) events.push_back(v.events);
  EXPECT_EQ(events, (std::vector<std::vector<std::uint64_t>>{{released_a, started_a},
                                                             {released_b, started_b},
                                                             {released_a, again_a}}))
      << all(found);
}

// --- scope-key-injective ---

TEST(ScopeKeyInjective, KeysWithSeparatorsAndEscapesRoundTrip) {
  Story s;
  s.holder(EventKind::kTakeSent, "a", 0, {}, {}, 0, {"tenant:1", "order%1/ü"});
  s.store(EventKind::kStoreLeaseGranted, "a", 1, kTtl, {}, {"tenant", "1:order-1"});
  s.sink(EventKind::kSinkApplied, 1, 1, {"", ""});
  std::vector<Violation> found;
  check_scope_key_injective(s.events(), found);
  EXPECT_TRUE(found.empty()) << all(found);
}

TEST(ScopeKeyInjective, AScopeKeyThatDoesNotDecodeIsReported) {
  Story s;
  const auto bad = s.add(
      kSink, {EventKind::kSinkApplied, "payments", {}, "tenant-1:order%ZZ", 1, {}, "idem", 1});
  std::vector<Violation> found;
  check_scope_key_injective(s.events(), found);
  expect_one(found, ScopeKeyInjective{}.name(), {bad});
}

TEST(ScopeKeyInjective, TwoLeaseKeysSharingAScopeKeyAreReported) {
  // A runtime that fenced an AnyInstance child under its parent's scope key.
  const runtime::LeaseKey child{"tenant-1", "order-1/children/invoice"};
  Story s;
  const auto parent = s.holder(EventKind::kWriteSent, "a", 1, "charge");
  const auto shared = s.add(kNodeA, {EventKind::kWriteSent, "a", child,
                                     scope_key_of(kTree), 1, "charge", "idem", 0});
  std::vector<Violation> found;
  check_scope_key_injective(s.events(), found);
  ASSERT_EQ(found.size(), 2u) << all(found);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{parent, shared}));
  EXPECT_EQ(found[1].events, std::vector<std::uint64_t>{shared});
}

// --- the facts of a real run ---

TEST(RunFacts, DriftIsReadFromTheAppliedFaultsAndAStoreClockStepLeavesTheAssumptions) {
  const auto registry = scenarios::builtin_scenarios();
  RunRequest request{"kleppmann-fencing", 7};
  const sim::Fault drift{sim::FaultKind::kClockDrift, "instance-1", {}, 2 * kSecond, {}, 0, 700, 0};
  const sim::Fault step{
      sim::FaultKind::kClockStep, "lease-store", {}, 3 * kSecond, {}, 0, -2 * kSecond, 0};
  request.plan_override = sim::FaultPlan{{drift}};
  run_scenario(registry, request, [](const sim::World& world, const RunReport& report) {
    const RunFacts facts = run_facts(world);
    EXPECT_TRUE(facts.within_assumptions);
    EXPECT_EQ(facts.ttl_ns, world.options().lease.ttl_ns);
    const sim::NodeId node = *world.find_node("instance-1");
    ASSERT_EQ(facts.drift.size(), 1u);
    ASSERT_EQ(facts.drift.at(node).size(), 1u);
    EXPECT_EQ(facts.drift.at(node).front().at_ns, 2 * kSecond);
    EXPECT_EQ(facts.drift.at(node).front().drift_ppm, 700);
    EXPECT_EQ(report.status, RunStatus::kPass);
  });
  request.plan_override = sim::FaultPlan{{drift, step}};
  run_scenario(registry, request, [](const sim::World& world, const RunReport&) {
    EXPECT_FALSE(run_facts(world).within_assumptions);
  });
}

TEST(RunFacts, TheKleppmannStoryPassesEveryInvariantOnItsWorld) {
  const auto registry = scenarios::builtin_scenarios();
  run_scenario(registry, RunRequest{"kleppmann-fencing", 7},
               [](const sim::World& world, const RunReport&) {
                 for (const auto& invariant : default_invariants()) {
                   std::vector<Violation> found;
                   invariant->check(world, found);
                   EXPECT_TRUE(found.empty()) << invariant->name() << ": " << all(found);
                 }
               });
}

// --- the registry ---

TEST(DefaultInvariants, EveryInvariantHasAUniqueNameAndAStatement) {
  std::set<std::string_view> names;
  for (const auto& invariant : default_invariants()) {
    EXPECT_TRUE(names.insert(invariant->name()).second) << invariant->name();
    EXPECT_FALSE(invariant->statement().empty()) << invariant->name();
  }
  for (std::string_view name :
       {"conditional-renewal", "conservative-belief", "stale-step-never-succeeds", "stopped-holder",
        "classification", "fence-scoping", "no-false-fencing", "safe-yield", "scope-key-injective",
        "strict-confirm", "exactly-once", "reference-model", "expired-write-never-succeeds",
        "refusal-is-a-loss", "decided-as-loss", "pass-ends-as-it-went"}) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
}

// The whole default set, in its order (the order violations are reported in): an invariant the
// registry dropped judges nothing in any sweep and nothing else notices, since a checker that is not
// run cannot fail (red-team round 28e). A new invariant is added here as well as to the registry.
TEST(DefaultInvariants, AreEveryInvariantOnceInTheirReportOrder) {
  std::vector<std::string_view> names;
  for (const auto& invariant : default_invariants()) names.push_back(invariant->name());
  const std::vector<std::string_view> expected{
      "sink-monotonicity", "exactly-once", "per-key-epochs", "conditional-renewal",
      "conservative-belief", "stale-step-never-succeeds", "stopped-holder", "classification",
      "fence-scoping", "no-false-fencing", "fenced-checkpoint", "fence-refuses-outside-its-step",
      "safe-yield", "strict-confirm", "scope-key-injective", "reference-model",
      "expired-write-never-succeeds", "acts-within-belief", "renewal-cadence", "timely-loss",
      "own-workflow", "group-join", "cancel-is-final", "write-verdict", "fence-after-loss",
      "error-code-families", "call-ends-at-abort", "withdrawal-frame", "refusal-hands-over",
      "confirm-reads-cancel", "cancel-aborts-steps", "cancel-seen-in-time", "refusal-is-a-loss",
      "decided-as-loss", "pass-ends-as-it-went", "reported-as-recorded", "lease-terms",
      "lost-only-when-lost", "stale-step-ends-lost", "ended-tree-not-live", "confirm-within-step",
      "siblings-named-apart", "cancel-ends-no-later-step", "confirm-cancel-hides-no-loss",
        "stale-withdrawal-ends-lost", "yield-lost-only-to-a-taker", "step-commits-under-its-token",
        "confirm-cancel-after-renewal", "belief-reported-as-read", "store-reported-as-replied",
        "remote-wait-ends-held", "loss-after-its-cause", "cancel-seen-once-per-pass",
        "returned-withdrawal-not-lost", "signal-reason-kept", "ended-pass-gives-back-its-lease"};
  EXPECT_EQ(names, expected);
}

}  // namespace
}  // namespace fencesim::properties::invariants_test
