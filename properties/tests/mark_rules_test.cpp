// Every mark rule (properties/mark_rules.cpp) on hand-made histories, read through a MarkDetector
// as a sweep reads a run: each event says exactly which marks it reaches. A sweep's "declared
// marks reached" is only as true as these rules: one that goes quiet leaves a scenario's claim
// unproven (the catalogue sees that only for the marks a scenario declares), and one that fires on
// a near miss (the wrong holder, key or token, the reply in time, the lease given back, the
// loss's later reason) claims a dangerous moment that never happened, and no run can tell. So each
// rule is shown the moment it names and the near misses beside it. The error code below is the
// ADR's name, written out, not the runtime's constant.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "properties/marks.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::mark_rules_test {
namespace {

using runtime::EventKind;
using Marks = std::vector<std::string>;

const runtime::LeaseKey kTree{"tenant-1", "order-1"};
const runtime::LeaseKey kOtherTree{"tenant-1", "order-2"};

class Story {
 public:
  explicit Story(sim::WorldOptions options = {}) : world_(std::move(options)) {
    store_ = world_.add_lease_store();
    instance_ = world_.add_instance("instance-1");
    detector_ = std::make_unique<MarkDetector>(world_);
  }
  sim::NodeId store() const { return store_; }
  sim::NodeId instance() const { return instance_; }

  // The marks a runtime event of `holder` reaches.
  Marks runtime(EventKind kind, runtime::Token token, std::int64_t at_ns,
                const std::string& detail = "", const std::string& holder = "instance-1",
                const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e = testing::next_event(events_, instance_, sim::WorldEventKind::kRuntime,
                                              at_ns);
    e.runtime.kind = kind;
    e.runtime.holder = holder;
    e.runtime.key = key;
    e.runtime.token = token;
    e.runtime.detail = detail;
    return observe(std::move(e));
  }
  // The marks the lease store's grant of a take or renewal of `key`, token `token`, sent by
  // `node` at `sent_ns` on its clock with the world's ttl, reaches.
  Marks granted(sim::StoreOp op, runtime::Token token, std::int64_t sent_ns,
                sim::NodeId node, const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e = testing::next_event(events_, store_, sim::WorldEventKind::kStoreCall,
                                              sent_ns);
    sim::StoreCall call;
    call.op = op;
    call.store = "lease-store";
    call.key = key;
    call.holder = "instance-1";
    call.token = token;
    call.ttl_ns = world_.options().lease.ttl_ns;
    call.sent_ns = sent_ns;
    call.sent_monotonic_ns = sent_ns;
    call.from = node;
    call.outcome = op == sim::StoreOp::kTake ? "taken" : "renewed";
    if (op == sim::StoreOp::kTake) {
      call.lease = runtime::Lease{key, "instance-1", token, sent_ns + call.ttl_ns, false};
    }
    e.store = std::make_shared<const sim::StoreCall>(std::move(call));
    return observe(std::move(e));
  }
  // The marks a committed checkpoint of `step` by the holder at `node`, at `at_ns` on its clock,
  // reaches.
  Marks committed(runtime::Token token, std::int64_t at_ns, const std::string& step,
                  sim::NodeId node, const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e = testing::next_event(events_, node, sim::WorldEventKind::kRuntime, at_ns);
    e.runtime.kind = EventKind::kCheckpointCommitted;
    e.runtime.holder = "instance-1";
    e.runtime.key = key;
    e.runtime.token = token;
    e.runtime.step = step;
    return observe(std::move(e));
  }
  // The marks a step's intended fenced write (the workload's kIntent) under `token`, made by the
  // holder at `node` at `at_ns` on its clock, reaches.
  Marks intent(runtime::Token token, std::int64_t at_ns, sim::NodeId node,
               const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e = testing::next_event(events_, node, sim::WorldEventKind::kIntent, at_ns);
    e.runtime.key = key;
    e.runtime.token = token;
    e.runtime.step = "charge";
    e.runtime.holder = "sink";
    e.runtime.detail = "charge";
    e.detail = "effect-1 charge";
    return observe(std::move(e));
  }
  // The marks a runtime event of `holder` under `scope` (a sink's: no tree key) reaches.
  Marks scoped(EventKind kind, runtime::Token token, const std::string& scope,
               const std::string& holder, const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e =
        testing::next_event(events_, instance_, sim::WorldEventKind::kRuntime, next_ns());
    e.runtime.kind = kind;
    e.runtime.holder = holder;
    e.runtime.key = key;
    e.runtime.scope_key = scope;
    e.runtime.token = token;
    return observe(std::move(e));
  }
  // The marks a runtime event of the instance's at `step` reaches.
  Marks at_step(EventKind kind, const std::string& step, const std::string& detail) {
    sim::HistoryEvent e =
        testing::next_event(events_, instance_, sim::WorldEventKind::kRuntime, next_ns());
    e.runtime.kind = kind;
    e.runtime.holder = "instance-1";
    e.runtime.key = kTree;
    e.runtime.token = 1;
    e.runtime.step = step;
    e.runtime.detail = detail;
    return observe(std::move(e));
  }
  // The marks a step's start at `path` in `key`'s tree, at the instance, reaches.
  Marks started(const std::string& path, const runtime::LeaseKey& key = kTree) {
    sim::HistoryEvent e =
        testing::next_event(events_, instance_, sim::WorldEventKind::kRuntime, next_ns());
    e.runtime.kind = EventKind::kStepStarted;
    e.runtime.holder = "instance-1";
    e.runtime.key = key;
    e.runtime.token = 1;
    e.runtime.step = path;
    return observe(std::move(e));
  }
  // The marks a world event at `node` reaches.
  Marks world(sim::WorldEventKind kind, sim::NodeId node, const std::string& detail = "") {
    sim::HistoryEvent e = testing::next_event(events_, node, kind, next_ns());
    e.detail = detail;
    return observe(std::move(e));
  }
  // The marks a cancel of `key` the store answered with `outcome` reaches.
  Marks cancel(const runtime::LeaseKey& key, const std::string& outcome, std::int64_t at_ns) {
    sim::HistoryEvent e = testing::next_event(events_, store_, sim::WorldEventKind::kStoreCall,
                                              at_ns);
    sim::StoreCall call;
    call.op = sim::StoreOp::kCancel;
    call.key = key;
    call.outcome = outcome;
    e.store = std::make_shared<const sim::StoreCall>(std::move(call));
    return observe(std::move(e));
  }
  // The marks a step body's confirmNow() of `key`, begun at `began_ns`, returning at `at_ns`,
  // reaches.
  Marks confirm(const runtime::LeaseKey& key, std::int64_t began_ns, std::int64_t at_ns,
                const std::string& what = "confirm") {
    sim::HistoryEvent e = testing::next_event(events_, instance_, sim::WorldEventKind::kObserved,
                                              at_ns);
    e.runtime.holder = what;
    e.runtime.key = key;
    e.runtime.token = 1;
    e.runtime.value = began_ns;
    e.detail = "confirmed";
    return observe(std::move(e));
  }

 private:
  std::int64_t next_ns() const {
    return events_.empty() ? 0 : events_.back().time_ns + 1;
  }
  Marks observe(sim::HistoryEvent e) {
    events_.push_back(e);
    std::vector<PlacedMark> placed;
    detector_->observe(events_.back(), placed);
    Marks names;
    for (const PlacedMark& mark : placed) {
      EXPECT_EQ(mark.event, events_.back().index) << mark.name << " placed at its event";
      names.push_back(mark.name);
    }
    return names;
  }

  sim::World world_;
  sim::NodeId store_ = 0;
  sim::NodeId instance_ = 0;
  std::unique_ptr<MarkDetector> detector_;
  Events events_;
};

TEST(MarkRulesTest, AWorkloadsOwnMarkIsReachedByItsName) {
  Story s;
  EXPECT_EQ(s.world(sim::WorldEventKind::kMark, s.instance(), "unchecked-call-overlapped"),
            Marks{"unchecked-call-overlapped"});
  EXPECT_EQ(s.world(sim::WorldEventKind::kMeasure, s.instance(), "unchecked-calls 1"), Marks{});
}

// A nested step's path joins its levels with '/' (each name encoded: a '/' of a name is "%2F"),
// so its separators are no hostile name's '/': read as one, every nested step reached
// hostile-name-slash-ran and its floor could not go quiet (session 44).
TEST(MarkRulesTest, ANestedStepsPathSeparatorsAreNoHostileSlash) {
  Story s;
  EXPECT_EQ(s.started("children/pay/charge"), Marks{});
  EXPECT_EQ(s.started("charge", runtime::LeaseKey{"tenant-1", "order/1"}),
            Marks{"hostile-name-slash-ran"});
}

// A step path's names are encoded: read as it is, its '%'s are any escaped byte's, so every step
// with a hostile name reached hostile-name-percent-ran and a path three times its names' length
// reached long, whatever the names held (session 45). Each level is read decoded.
TEST(MarkRulesTest, AStepPathIsReadAsItsDecodedNames) {
  {
    Story s;
    EXPECT_EQ(s.started("pay%0Aout/charge%3A1"),
              (Marks{"hostile-name-colon-ran", "hostile-name-control-ran"}));
    EXPECT_EQ(s.started("pay%2Fout"), Marks{"hostile-name-slash-ran"}) << "a name's own '/'";
    EXPECT_EQ(s.started(std::string(300, 'x') + "/" + std::string(10, 'y')),
              Marks{"hostile-name-long-ran"});
    EXPECT_EQ(s.started("99%25"), Marks{"hostile-name-percent-ran"}) << "a name's own '%'";
  }
  {
    Story s;
    EXPECT_EQ(s.started(std::string(90, '%') + "00"), Marks{"hostile-name-percent-ran"})
        << "a level that is no encoding is read as written";
  }
  Story s;
  std::string emoji;
  for (int i = 0; i < 20; ++i) emoji += "%F0%9F%A7%BE";
  EXPECT_EQ(s.started(emoji + std::string(100, 'z') + "/" + std::string(100, 'z')),
            (Marks{"hostile-name-non-ascii-ran", "hostile-name-four-byte-ran"}))
      << "340 bytes encoded, 180 decoded: no name 256 bytes long";
}

// An AnyInstance child's execution id is made by the runtime of its parent's id and its path,
// encoded: its '%' and ':' are the encoding's. The child's steps' names still count.
TEST(MarkRulesTest, APlacedChildsMadeExecutionIdIsNoHostileName) {
  {
    Story s;
    const runtime::LeaseKey child{"tenant-1", "order-1:pay%2Fcharge"};
    EXPECT_EQ(s.runtime(EventKind::kChildPlaced, 1, 10, "tenant-1:order-1%3Apay%252Fcharge"),
              Marks{});
    EXPECT_EQ(s.started("charge", child), Marks{});
    EXPECT_EQ(s.started("charge%3A1", child), Marks{"hostile-name-colon-ran"});
  }
  Story s;
  EXPECT_EQ(s.started("charge", runtime::LeaseKey{"tenant-1", "order-1:pay%2Fcharge"}),
            (Marks{"hostile-name-colon-ran", "hostile-name-percent-ran"}))
      << "the same id, never placed: a root's own";
}

// The stories of catalogue_cancel_endings.cpp claim these: each must be reached by its own
// ending only.
TEST(MarkRulesTest, APassThatDecidedCancelledButCouldNotFinishIsCancelledPassAbandoned) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kTreeAbandoned, 1, 10, "execution.lease-lost"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kTreeCancelled, 1, 20, "execution.cancelled"),
            Marks{"tree-cancelled"});
  EXPECT_EQ(s.runtime(EventKind::kTreeAbandoned, 1, 30, "execution.cancelled"),
            Marks{"cancelled-pass-abandoned"});
}

TEST(MarkRulesTest, OnlyTheTreesCompletionRefusedAsCancelledIsCompletionAnsweredCancelled) {
  Story s;
  EXPECT_EQ(s.at_step(EventKind::kCheckpointRefused, "charge", "cancelled"), Marks{})
      << "a step's checkpoint";
  EXPECT_EQ(s.at_step(EventKind::kCheckpointRefused, "<tree>", ""), Marks{}) << "by token";
  EXPECT_EQ(s.at_step(EventKind::kCheckpointRefused, "<tree>", "cancelled"),
            Marks{"completion-answered-cancelled"});
}

TEST(MarkRulesTest, ALostLeaseEndingAPassThatSawItsCancelIsCancelSeenByALostLease) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kTreeStarted, 1, 10), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 1, 20, "execution.lease-lost"), Marks{})
      << "no cancel seen";
  EXPECT_EQ(s.runtime(EventKind::kCancelSeen, 1, 30, "watcher", "instance-1", kOtherTree),
            Marks{"cancel-seen"});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 1, 40, "execution.lease-lost"), Marks{})
      << "another tree's cancel";
  EXPECT_EQ(s.runtime(EventKind::kTreeStarted, 2, 50), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kCancelSeen, 2, 60, "watcher"), Marks{"cancel-seen"});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 2, 70, "execution.cancelled"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kTreeStarted, 3, 80), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 3, 90, "execution.lease-lost"), Marks{})
      << "the cancel was the pass before's";
  EXPECT_EQ(s.runtime(EventKind::kCancelSeen, 3, 100, "watcher"), Marks{"cancel-seen"});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 3, 110, "execution.lease-lost.fenced"),
            Marks{"cancel-seen-by-a-lost-lease"});
}

TEST(MarkRulesTest, ARestartIsAnInstancesOrAStoresByTheNodeThatCameBack) {
  Story s;
  EXPECT_EQ(s.world(sim::WorldEventKind::kNodeCrashed, s.instance()), Marks{});
  EXPECT_EQ(s.world(sim::WorldEventKind::kNodeRestarted, s.instance(), "instance-1b"),
            Marks{"instance-restarted"});
  EXPECT_EQ(s.world(sim::WorldEventKind::kNodeCrashed, s.store()), Marks{});
  EXPECT_EQ(s.world(sim::WorldEventKind::kNodeRestarted, s.store()), Marks{"store-restarted"});
}

TEST(MarkRulesTest, ACancelRecordedWhileAConfirmOfItsTreeWasInFlightIsCancelDuringConfirm) {
  Story s;
  EXPECT_EQ(s.confirm(kTree, 50, 80), Marks{}) << "no cancel recorded yet";
  EXPECT_EQ(s.cancel(kTree, "recorded", 100), Marks{});
  EXPECT_EQ(s.confirm(kTree, 60, 150), Marks{"cancel-during-confirm"});
  EXPECT_EQ(s.confirm(kTree, 120, 160), Marks{}) << "began after the recording";
  EXPECT_EQ(s.confirm(kOtherTree, 60, 170), Marks{}) << "another tree's confirm";
  EXPECT_EQ(s.confirm(kTree, 60, 180, "write"), Marks{}) << "a write, not a confirm";
  // A later answer to another cancel of the tree moves nothing: the recording is the first's.
  EXPECT_EQ(s.cancel(kTree, "recorded", 400), Marks{});
  EXPECT_EQ(s.confirm(kTree, 200, 450), Marks{}) << "began after the first recording";
}

TEST(MarkRulesTest, ACancelTheStoreDidNotRecordIsNoCancelDuringConfirm) {
  Story s;
  EXPECT_EQ(s.cancel(kTree, "tree-completed", 100), Marks{});
  EXPECT_EQ(s.cancel(kOtherTree, "recorded", 100), Marks{});
  EXPECT_EQ(s.confirm(kTree, 60, 150), Marks{});
}

TEST(MarkRulesTest, AHolderSeeingACancelAndEndingATreeCancelledAreEachTheirOwnMark) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kCancelSeen, 1, 10), Marks{"cancel-seen"});
  EXPECT_EQ(s.runtime(EventKind::kTreeCancelled, 1, 20), Marks{"tree-cancelled"});
  EXPECT_EQ(s.runtime(EventKind::kTreeCompleted, 1, 30), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kTreeAbandoned, 1, 40), Marks{});
}

TEST(MarkRulesTest, EveryRefusedRenewalIsLateButOnlyAStaleOneUnderTheNextGrantIsStale) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 10, "expired"),
            Marks{"late-renewal-refused"});
  EXPECT_EQ(s.runtime(EventKind::kStoreLeaseGranted, 1, 20, "", "lease-store"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 30, "stale"),
            Marks{"late-renewal-refused"})
      << "token 1 is the latest grant: nobody holds the key after it";
  EXPECT_EQ(s.runtime(EventKind::kStoreLeaseGranted, 2, 40, "", "lease-store"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 50, "stale"),
            (Marks{"late-renewal-refused", "stale-renewal-refused"}));
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 55, "expired"),
            Marks{"late-renewal-refused"})
      << "refused as expired, not as stale";
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 60, "stale", "instance-1", kOtherTree),
            Marks{"late-renewal-refused"})
      << "another key was never granted";
}

TEST(MarkRulesTest, AStaleRenewalRefusedAfterTheNextHolderGaveTheKeyBackIsOnlyLate) {
  Story s;
  s.runtime(EventKind::kStoreLeaseGranted, 2, 10, "", "lease-store");
  EXPECT_EQ(s.runtime(EventKind::kStoreLeaseReleased, 1, 20, "", "lease-store"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 30, "stale"),
            (Marks{"late-renewal-refused", "stale-renewal-refused"}))
      << "the stale token's release gives back nothing of token 2";
  s.runtime(EventKind::kStoreLeaseReleased, 2, 40, "", "lease-store");
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 50, "stale"),
            Marks{"late-renewal-refused"});
  s.runtime(EventKind::kStoreLeaseGranted, 3, 60, "", "lease-store");
  EXPECT_EQ(s.runtime(EventKind::kStoreRenewRefused, 1, 70, "stale"),
            (Marks{"late-renewal-refused", "stale-renewal-refused"}))
      << "a new grant holds the key again";
}

// The margin is the world's terms' (ttl 30 s, 1000 ppm: 60 ms, plus the fixed part), not a
// default's: with a fixed part of 500 ms a reply 100 ms after the store renewed is in time.
TEST(MarkRulesTest, ARenewalsReplyMoreThanTheWorldsDriftMarginAfterTheStoreRenewedIsLate) {
  sim::WorldOptions options;
  options.lease.drift_margin_min_ns = 500'000'000;
  const std::int64_t margin_ns = 560'000'000;
  ASSERT_EQ(options.lease.drift_margin_ns(), margin_ns);
  Story s(options);
  s.runtime(EventKind::kStoreLeaseRenewed, 1, 1'000'000'000);
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 1, 1'100'000'000), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 1, 1'000'000'000 + margin_ns), Marks{})
      << "exactly the margin is in time";
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 1, 1'000'000'001 + margin_ns),
            Marks{"renewal-reply-late"});
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 2, 3'000'000'000), Marks{})
      << "token 2 was never renewed by the store";
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 1, 3'000'000'000, "", "instance-2"), Marks{})
      << "another requester's renewal";
  s.runtime(EventKind::kStoreLeaseRenewed, 1, 4'000'000'000);
  EXPECT_EQ(s.runtime(EventKind::kLeaseRenewed, 1, 4'100'000'000), Marks{})
      << "counted from the store's latest renewal";
}

// checkpoint-reply-after-local-expiry: the store's commit reply reached the holder at or after
// the moment its own clock said the lease was gone (the grant's send time plus the ttl less the
// drift margin), counted from the grants the store gave that node for that key and token.
// The drift margin of the default world's lease, written out from the ADR's rule (ttl less 2 x
// drift x ttl less the scheduling floor), not read from the oracle's own margin.
std::int64_t adr_margin_ns(const sim::WorldOptions& options) {
  const std::int64_t ttl_ns = options.lease.ttl_ns;
  return 2 * options.lease.drift_bound_ppm * (ttl_ns / 1'000'000) +
         options.lease.drift_margin_min_ns;
}

TEST(MarkRulesTest, AStepsCommitReplyAtOrAfterTheHoldersLocalExpiryIsAfterLocalExpiry) {
  sim::WorldOptions options;
  const std::int64_t ttl_ns = options.lease.ttl_ns;
  const std::int64_t margin_ns = adr_margin_ns(options);
  const std::int64_t sent_ns = 1'000'000'000;
  const std::int64_t expiry_ns = sent_ns + ttl_ns - margin_ns;
  const char* const mark = "checkpoint-reply-after-local-expiry";
  Story s(options);
  const sim::NodeId holder = s.instance();
  EXPECT_EQ(s.committed(1, expiry_ns, "charge", holder), Marks{}) << "never granted";
  s.granted(sim::StoreOp::kTake, 1, sent_ns, holder);
  EXPECT_EQ(s.committed(1, expiry_ns - 1, "charge", holder), Marks{}) << "a nanosecond early";
  EXPECT_EQ(s.committed(1, expiry_ns, "charge", holder), Marks{mark}) << "exactly at expiry";
  EXPECT_EQ(s.committed(1, expiry_ns + 5'000'000'000, "charge", holder), Marks{mark});
  EXPECT_EQ(s.committed(1, expiry_ns, "<tree>", holder), Marks{}) << "the tree's, not a step's";
  EXPECT_EQ(s.committed(2, expiry_ns, "charge", holder), Marks{}) << "token 2 never granted";
  EXPECT_EQ(s.committed(1, expiry_ns, "charge", holder, kOtherTree), Marks{}) << "another key";
  EXPECT_EQ(s.committed(1, expiry_ns, "charge", holder + 7), Marks{})
      << "another node than the one granted";
  // A renewal sent while the lease was still held extends it by its own send time.
  const std::int64_t renewed_ns = sent_ns + 20'000'000'000;
  s.granted(sim::StoreOp::kRenew, 1, renewed_ns, holder);
  EXPECT_EQ(s.committed(1, expiry_ns + 5'000'000'000, "charge", holder), Marks{})
      << "renewed before it expired";
  EXPECT_EQ(s.committed(1, renewed_ns + ttl_ns - margin_ns, "charge", holder), Marks{mark});
  // A renewal sent after the local expiry does not bring the lease back.
  s.granted(sim::StoreOp::kTake, 3, sent_ns, holder);
  s.granted(sim::StoreOp::kRenew, 3, expiry_ns + 1, holder);
  EXPECT_EQ(s.committed(3, expiry_ns + 2, "charge", holder), Marks{mark})
      << "a renewal sent after the lease was gone";
}

TEST(MarkRulesTest, AWriteIntendedAtTheVeryInstantOfTheHoldersLocalExpiryIsAtBeliefEnd) {
  sim::WorldOptions options;
  const std::int64_t sent_ns = 1'000'000'000;
  const std::int64_t expiry_ns = sent_ns + options.lease.ttl_ns - adr_margin_ns(options);
  const char* const mark = "write-attempted-at-belief-end";
  Story s(options);
  const sim::NodeId holder = s.instance();
  EXPECT_EQ(s.intent(1, expiry_ns, holder), Marks{}) << "never granted";
  s.granted(sim::StoreOp::kTake, 1, sent_ns, holder);
  EXPECT_EQ(s.intent(1, expiry_ns - 1, holder), Marks{}) << "a nanosecond early";
  EXPECT_EQ(s.intent(1, expiry_ns, holder), Marks{mark}) << "the very instant";
  EXPECT_EQ(s.intent(1, expiry_ns + 1, holder), Marks{}) << "after it: the instant only";
  EXPECT_EQ(s.intent(2, expiry_ns, holder), Marks{}) << "token 2 never granted";
  EXPECT_EQ(s.intent(1, expiry_ns, holder, kOtherTree), Marks{}) << "another key";
}

TEST(MarkRulesTest, ARenewalRefusedAsExpiredOrOverrunByALocalExpiryRacedTheExpiry) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kRenewRefused, 1, 10, "expired"),
            Marks{"renewal-raced-expiry"});
  EXPECT_EQ(s.runtime(EventKind::kRenewRefused, 1, 20, "stale"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 1, 30, "local-expiry"), Marks{})
      << "no renewal in flight";
  EXPECT_EQ(s.runtime(EventKind::kRenewSent, 2, 40), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 2, 50, "local-expiry"),
            Marks{"renewal-raced-expiry"});
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 2, 55, "local-expiry"), Marks{})
      << "the loss ended the renewal's flight";
  s.runtime(EventKind::kRenewSent, 3, 60);
  s.runtime(EventKind::kLeaseRenewed, 3, 70);
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 3, 80, "local-expiry"), Marks{})
      << "the renewal had come back";
  s.runtime(EventKind::kRenewSent, 4, 90);
  s.runtime(EventKind::kRenewRefused, 4, 100, "stale");
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 4, 110, "local-expiry"), Marks{})
      << "the renewal had been refused";
  s.runtime(EventKind::kRenewSent, 5, 120);
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 5, 130, "refused"), Marks{}) << "not an expiry";
  s.runtime(EventKind::kRenewSent, 6, 140, "", "instance-2");
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 6, 150, "local-expiry"), Marks{})
      << "another holder's renewal";
}

TEST(MarkRulesTest, ALocalExpiryWhileTheSameTokensWriteWasInFlightIsExpiryDuringWrite) {
  Story s;
  s.runtime(EventKind::kWriteSent, 1, 10);
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 2, 20, "local-expiry"), Marks{})
      << "another token's loss";
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 1, 25, "refused"), Marks{}) << "not an expiry";
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 1, 30, "local-expiry"),
            Marks{"expiry-during-write"});
  s.runtime(EventKind::kWriteSent, 3, 40);
  s.runtime(EventKind::kWriteAccepted, 3, 50);
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 3, 60, "local-expiry"), Marks{})
      << "the write had been answered";
  s.runtime(EventKind::kWriteSent, 4, 70);
  s.runtime(EventKind::kWriteRefused, 4, 80);
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 4, 90, "local-expiry"), Marks{});
  s.runtime(EventKind::kWriteSent, 5, 100, "", "instance-2");
  EXPECT_EQ(s.runtime(EventKind::kLeaseLost, 5, 110, "local-expiry"), Marks{})
      << "another holder's write";
}

TEST(MarkRulesTest, AFencedClassificationAfterTheTokensFirstLossWasALocalExpiry) {
  const std::string fenced = "execution.lease-lost.fenced";  // the ADR's code
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 1, 10, fenced), Marks{}) << "never lost";
  s.runtime(EventKind::kLeaseLost, 1, 20, "local-expiry");
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 1, 30, "execution.lease-lost"), Marks{});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 1, 40, fenced),
            Marks{"fenced-after-local-expiry"});
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 2, 50, fenced), Marks{}) << "token 2";
  s.runtime(EventKind::kLeaseLost, 3, 60, "refused");
  s.runtime(EventKind::kLeaseLost, 3, 70, "local-expiry");
  EXPECT_EQ(s.runtime(EventKind::kErrorClassified, 3, 80, fenced), Marks{})
      << "token 3 was first lost to a refusal";
}

TEST(MarkRulesTest, TheStoresAndTheRuntimesRefusalsAreTheirMarksAndNothingElseIs) {
  Story s;
  EXPECT_EQ(s.runtime(EventKind::kStoreCheckpointRefused, 1, 10, "", "checkpoint-store"),
            Marks{"checkpoint-refused"});
  EXPECT_EQ(s.runtime(EventKind::kCheckpointRefused, 1, 20), Marks{})
      << "the holder's side of the refusal";
  EXPECT_EQ(s.runtime(EventKind::kStoreCheckpointCommitted, 1, 30, "", "checkpoint-store"),
            Marks{});
  EXPECT_EQ(s.runtime(EventKind::kWithdrawalRefused, 1, 40),
            Marks{"withdrawal-refused-while-live"});
  EXPECT_EQ(s.runtime(EventKind::kWithdrawalEnded, 1, 50), Marks{});
}

TEST(MarkRulesTest, AWaitBegunWhileAStepOfItsTreeRunsIsDeferredAndOnlyAWaitsReleaseYields) {
  Story s;
  s.runtime(EventKind::kStepStarted, 1, 10);
  EXPECT_EQ(s.runtime(EventKind::kRemoteWaitBegan, 1, 20), Marks{"yield-deferred"});
  s.runtime(EventKind::kRemoteWaitEnded, 1, 30);
  s.runtime(EventKind::kStepEnded, 1, 40);
  EXPECT_EQ(s.runtime(EventKind::kLeaseReleased, 1, 45), Marks{}) << "no wait: a plain release";
  s.runtime(EventKind::kStepStarted, 2, 50, "", "instance-1", kOtherTree);
  EXPECT_EQ(s.runtime(EventKind::kRemoteWaitBegan, 2, 60), Marks{})
      << "only another tree's step runs";
  EXPECT_EQ(s.runtime(EventKind::kLeaseReleased, 2, 70), Marks{"lease-yielded"});
  s.runtime(EventKind::kRemoteWaitEnded, 2, 80);
  EXPECT_EQ(s.runtime(EventKind::kLeaseReleased, 2, 90), Marks{}) << "the wait had ended";
}

// A sink knows a write by its scope key and token only: a refusal of a token a remote-children
// wait gave back is write-refused-after-a-yield (refusal-lands-while-yielded claims it).
TEST(MarkRulesTest, ASinkRefusalOfATokenAWaitGaveBackIsWriteRefusedAfterAYield) {
  Story s;
  const std::string scope = "tenant-1:order-1";
  const runtime::LeaseKey sink_key{};
  EXPECT_EQ(s.scoped(EventKind::kSinkRefused, 1, scope, "payments", sink_key),
            Marks{"stale-write-refused"})
      << "not given back yet";
  EXPECT_EQ(s.scoped(EventKind::kLeaseReleased, 1, scope, "instance-1"), Marks{})
      << "a release with no wait: the tree completed";
  EXPECT_EQ(s.scoped(EventKind::kSinkRefused, 1, scope, "payments", sink_key),
            Marks{"stale-write-refused"});
  EXPECT_EQ(s.scoped(EventKind::kRemoteWaitBegan, 2, scope, "instance-1"), Marks{});
  EXPECT_EQ(s.scoped(EventKind::kLeaseReleased, 2, scope, "instance-1"),
            Marks{"lease-yielded"});
  EXPECT_EQ(s.scoped(EventKind::kSinkRefused, 3, scope, "payments", sink_key),
            Marks{"stale-write-refused"})
      << "another token";
  EXPECT_EQ(s.scoped(EventKind::kSinkRefused, 2, "tenant-1:order-2", "payments", sink_key),
            Marks{"stale-write-refused"})
      << "another scope";
  EXPECT_EQ(s.scoped(EventKind::kSinkRefused, 2, scope, "payments", sink_key),
            (Marks{"stale-write-refused", "write-refused-after-a-yield"}));
  EXPECT_EQ(s.scoped(EventKind::kWriteRefused, 3, scope, "instance-1"), Marks{})
      << "its holder reads a refusal of a token still held";
  EXPECT_EQ(s.scoped(EventKind::kWriteRefused, 2, scope, "instance-1"),
            Marks{"write-refusal-read-after-a-yield"});
}

}  // namespace
}  // namespace fencesim::properties::mark_rules_test
