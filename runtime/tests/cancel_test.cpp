// Cancellation (#360, issue 9 item 11): a client's cancel, recorded at the checkpoint store,
// reaches the holder; its steps' signal aborts with the cancel; confirmNow() and the next step
// start refuse; the tree ends cancelled, never completes, and is not run again. Each test fails on
// the old runtime (no cancel checks), kept as mutants/cancel-checks-dead.patch.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/execution_fence.h"
#include "runtime/frame.h"
#include "runtime/held_lease.h"
#include "runtime/placement_queue.h"
#include "runtime/testing/leases_fixture.h"
#include "runtime/tree_cancel.h"
#include "runtime/tree_runner.h"

namespace fencesim::runtime::cancel_test {
namespace {

using testing::LeasesFixture;

const LeaseKey kKey{"tenant-1", "order-7"};

template <typename Error>
bool is(const std::exception_ptr& error) {
  if (!error) return false;
  try {
    std::rethrow_exception(error);
  } catch (const Error&) {
    return true;
  } catch (...) {
    return false;
  }
}

std::size_t started(const LeasesFixture& f, const std::string& step) {
  std::size_t n = 0;
  for (const RuntimeEvent& e : f.events.events()) n += e.kind == EventKind::kStepStarted && e.step == step;
  return n;
}

std::size_t count_of(const LeasesFixture& f, EventKind kind, const LeaseKey& key) {
  std::size_t n = 0;
  for (const RuntimeEvent& e : f.events.events()) n += e.kind == kind && e.key == key;
  return n;
}

void expect_ended_cancelled(LeasesFixture& f) {
  EXPECT_EQ(count_of(f, EventKind::kTreeCancelled, kKey), 1u);
  EXPECT_EQ(count_of(f, EventKind::kTreeCompleted, kKey), 0u);
  EXPECT_EQ(f.events.last(EventKind::kTreeCancelled)->detail, "execution.cancelled");
  EXPECT_FALSE(f.checkpoints.load(kKey).tree_completed);
  ASSERT_TRUE(f.queue.find(kKey).has_value());
  EXPECT_TRUE(f.queue.find(kKey)->finished);
  // Its holder gave the lease back: the tree is not held by anyone.
  ASSERT_TRUE(f.leases.read(kKey).has_value());
  EXPECT_TRUE(f.leases.read(kKey)->released);
}

// A confirm that begins after the cancel was recorded throws ExecutionCancelledError, though the
// lease is held and the renewal would be granted; the signal's reason is the cancel; the next
// step does not start.
TEST(Cancel, ConfirmNowThrowsOnceTheCancelIsRecorded) {
  LeasesFixture f;
  std::exception_ptr second_confirm;
  std::exception_ptr reason;
  bool first_confirmed = false;
  f.workflows.add(Workflow{"w", {StepItem{"notify",
                                          [&](ExecutionContext& c) {
                                            c.fence().confirm_now();
                                            first_confirmed = true;
                                            c.env().sleep(2 * kSecond);
                                            try {
                                              c.fence().confirm_now();
                                            } catch (const std::exception&) {
                                              second_confirm = std::current_exception();
                                            }
                                            reason = c.signal().reason();
                                            if (second_confirm) std::rethrow_exception(second_confirm);
                                          }},
                                 StepItem{"after", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(kSecond);
  ASSERT_TRUE(first_confirmed);
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  f.time.advance(5 * kSecond);
  EXPECT_TRUE(is<ExecutionCancelledError>(second_confirm));
  EXPECT_EQ(error_code(second_confirm), "execution.cancelled");
  EXPECT_TRUE(is<ExecutionCancelledError>(reason));
  EXPECT_EQ(started(f, "after"), 0u);
  ASSERT_NE(f.events.last(EventKind::kStepEnded), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kStepEnded)->detail, "execution.cancelled");
  ASSERT_NE(f.events.last(EventKind::kCancelSeen), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kCancelSeen)->detail, "confirm-before");
  // Not a lease loss: the holder kept its lease until it ended the tree.
  EXPECT_EQ(f.events.count(EventKind::kLeaseLost), 0u);
  expect_ended_cancelled(f);
}

// The watcher beside the renewal timer learns of the cancel while a step runs that never
// confirms: the step's signal aborts with the cancel, and the step after it does not start even
// though the running step returned normally.
TEST(Cancel, TheWatcherAbortsTheSignalAndTheNextStepDoesNotStart) {
  LeasesFixture f;
  bool aborted_with_cancel = false;
  f.workflows.add(Workflow{"w", {StepItem{"long",
                                          [&](ExecutionContext& c) {
                                            c.env().sleep(25 * kSecond);
                                            aborted_with_cancel =
                                                is<ExecutionCancelledError>(c.signal().reason());
                                          }},
                                 StepItem{"after", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(2 * kSecond);
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  f.time.advance(10 * kSecond);
  // Seen within one renewal interval, by the watcher.
  ASSERT_NE(f.events.last(EventKind::kCancelSeen), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kCancelSeen)->detail, "watcher");
  f.time.advance(30 * kSecond);
  EXPECT_TRUE(aborted_with_cancel);
  EXPECT_EQ(started(f, "after"), 0u);
  expect_ended_cancelled(f);
}

// A cancel recorded between two steps, before the watcher's next read: the next step's start
// reads the store and refuses.
TEST(Cancel, TheNextStepStartReadsTheCancelAndRefuses) {
  LeasesFixture f;
  // The client's cancel is recorded as "first" returns (before its checkpoint commits).
  f.workflows.add(Workflow{"w", {StepItem{"first", [&](ExecutionContext& c) {
                                            c.env().sleep(kSecond);
                                            ASSERT_EQ(f.checkpoints.request_cancel(c.tree_key()),
                                                      CancelStatus::kRecorded);
                                          }},
                                 StepItem{"second", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(3 * kSecond);
  EXPECT_EQ(started(f, "second"), 0u);
  ASSERT_NE(f.events.last(EventKind::kCancelSeen), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kCancelSeen)->detail, "step-start");
  EXPECT_TRUE(f.checkpoints.load(kKey).completed_steps.contains("first"));
  expect_ended_cancelled(f);
}

// The first step of a pass reads the cancel at its start too: a remote-children wait may have
// lasted long since the pass's start read the checkpoint. The child records its parent's cancel
// as its step returns; the parent's first step, after the wait, starts never (red team 37b-21
// skipped the read while the pass had committed no step and ran none).
TEST(Cancel, TheFirstStepAfterARemoteWaitReadsTheCancel) {
  LeasesFixture f;
  f.workflows.add(Workflow{"child", {StepItem{"work", [&](ExecutionContext& c) {
                                                c.env().sleep(kSecond);
                                                ASSERT_EQ(f.checkpoints.request_cancel(kKey),
                                                          CancelStatus::kRecorded);
                                              }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g", {{"c", ChildPlacement::kAnyInstance, "child"}}},
                            StepItem{"after", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(60 * kSecond);
  EXPECT_EQ(started(f, "after"), 0u) << "a step started after its tree's cancel was recorded";
  ASSERT_NE(f.events.last(EventKind::kCancelSeen), nullptr);
  expect_ended_cancelled(f);
}

// A tree cancelled before any holder ran it: the first pass runs no step and finishes the
// placement; no instance takes it again.
TEST(Cancel, ACancelledTreeIsNotRetaken) {
  LeasesFixture f;
  int ran = 0;
  f.workflows.add(Workflow{"w", {StepItem{"a", [&](ExecutionContext&) { ++ran; }}}});
  f.add_instance("A");
  f.add_instance("B");
  f.queue.place(kKey, "w", std::nullopt);
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  f.start_all();
  f.time.advance(5 * kSecond);
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(started(f, "a"), 0u);
  expect_ended_cancelled(f);
  EXPECT_EQ(f.events.count(EventKind::kLeaseTaken), 1u);
  const std::size_t takes = f.events.count(EventKind::kTakeSent);
  f.time.advance(60 * kSecond);
  // Its placement is finished: nobody asks for its lease again.
  EXPECT_EQ(f.events.count(EventKind::kTakeSent), takes);
  EXPECT_EQ(f.events.count(EventKind::kLeaseTaken), 1u);
  EXPECT_EQ(f.events.last(EventKind::kCancelSeen)->detail, "pass-start");
}

// The store decides between a cancel and the tree's completion: a cancel recorded after the last
// step's start check beats the completion commit (the holder ends the tree cancelled), and a tree
// that completed cannot be cancelled.
TEST(Cancel, ACancelThatBeatsTheCompletionEndsTheTreeCancelled) {
  LeasesFixture f;
  const LeaseKey other{"tenant-1", "other"};
  // The body records its own tree's cancel at the store, as a racing client would.
  f.workflows.add(Workflow{"racing", {StepItem{"only", [&](ExecutionContext& c) {
                                         (void)f.checkpoints.request_cancel(c.tree_key());
                                       }}}});
  f.workflows.add(Workflow{"plain", {StepItem{"only", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "racing", std::nullopt);
  f.queue.place(other, "plain", std::nullopt);
  f.start_all();
  f.time.advance(2 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kKey).completed_steps.contains("only"));
  ASSERT_NE(f.events.last(EventKind::kCancelSeen), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kCancelSeen)->detail, "commit-tree");
  expect_ended_cancelled(f);
  EXPECT_TRUE(f.checkpoints.load(other).tree_completed);
  EXPECT_EQ(f.checkpoints.request_cancel(other), CancelStatus::kTreeCompleted);
}

// A cancel seen while the root's lease is yielded for a remote-children wait in two lanes at once
// ends the tree: the lane that finds the yield taken back by the lane that saw the cancel first
// ends with the cancel too, not with a held check of the released lease (the pass would then be
// abandoned as a lease loss, and the tree taken again only to be ended).
TEST(Cancel, ACancelSeenWhileTwoLanesWaitWithTheLeaseYieldedEndsTheTree) {
  LeasesFixture f;
  f.workflows.add(Workflow{
      "far", {StepItem{"far", [](ExecutionContext& c) { c.env().sleep(300 * kSecond); }}}});
  f.workflows.add(Workflow{"lane", {GroupItem{"g", {{"r", ChildPlacement::kAnyInstance, "far"}}}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"lanes",
                                      {{"a", ChildPlacement::kParentInstance, "lane"},
                                       {"b", ChildPlacement::kParentInstance, "lane"}}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(10 * kSecond);
  ASSERT_TRUE(f.leases.read(kKey).has_value());
  ASSERT_TRUE(f.leases.read(kKey)->released);  // both lanes wait: the root's lease is yielded
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  f.time.advance(30 * kSecond);
  EXPECT_EQ(count_of(f, EventKind::kTreeAbandoned, kKey), 0u);
  expect_ended_cancelled(f);
  // One pass: the lane that saw the cancel took the yielded lease back before it ended the tree
  // (red team re-read 2026-12-04, finding 1), and nobody took the tree again after it.
  EXPECT_EQ(count_of(f, EventKind::kTreeStarted, kKey), 1u);
  EXPECT_EQ(count_of(f, EventKind::kLeaseTaken, kKey), 2u);
}

// Issue 29 item 1: a tree that ended by its cancel counts as ended. The end is the cancelled
// pass's finish, not the cancel's recording: while the holder has not yet learnt of the cancel
// (its step runs on), a withdrawal from another instance is still refused; once the pass finished
// the tree, a withdrawal from any instance runs without a fence, as after a completion.
TEST(Cancel, AWithdrawalAfterTheCancelledPassFinishedRunsUnfenced) {
  LeasesFixture f;
  f.workflows.add(Workflow{
      "w", {StepItem{"long", [](ExecutionContext& c) { c.env().sleep(25 * kSecond); }},
            StepItem{"after", [](ExecutionContext&) {}}}});
  Instance& a = f.add_instance("A");
  Instance& b = f.add_instance("B");
  f.queue.place(kKey, "w", std::nullopt);
  a.start();
  f.time.advance(2 * kSecond);
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  int ran = 0;
  // Recorded, not yet ended: the holder's step still runs under its lease.
  EXPECT_TRUE(
      is<WithdrawalRefusedError>(b.withdraw(kKey, "long", [&](ExecutionContext&) { ++ran; })));
  EXPECT_EQ(ran, 0);
  f.time.advance(40 * kSecond);
  expect_ended_cancelled(f);
  FrameKind a_frame = FrameKind::kStep;
  FrameKind b_frame = FrameKind::kStep;
  EXPECT_EQ(b.withdraw(kKey, "long", [&](ExecutionContext& c) { b_frame = c.frame_kind(); ++ran; }),
            nullptr);
  EXPECT_EQ(
      a.withdraw(kKey, "after", [&](ExecutionContext& c) { a_frame = c.frame_kind(); ++ran; }),
      nullptr);
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(b_frame, FrameKind::kRebuilt);
  EXPECT_EQ(a_frame, FrameKind::kRebuilt);
  EXPECT_EQ(f.events.count(EventKind::kWithdrawalRefused), 1u);
  ASSERT_NE(f.events.last(EventKind::kWithdrawal), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kWithdrawal)->detail, "unfenced");
}

}  // namespace
}  // namespace fencesim::runtime::cancel_test

namespace fencesim::runtime::cancel_test {
namespace {

const LeaseKey kRoot{"tenant-1", "order-9"};

std::vector<std::string> holders_of(const LeasesFixture& f, EventKind kind, const LeaseKey& key) {
  std::vector<std::string> out;
  for (const RuntimeEvent& e : f.events.events()) {
    if (e.kind == kind && e.key == key) out.push_back(e.holder);
  }
  return out;
}

// Red team re-read 2026-12-04, finding 1: a cancel seen while the lease is yielded for the
// remote-children wait is not the end of the tree while another holder took the tree during the
// yield: A yields (its branch's step failed, its remote child runs on), B takes the tree and
// re-runs that step, the client cancels, and A's watcher sees the cancel. A takes the lease back
// before it ends the tree; refused (B holds it), A's pass is over and B, which learns of the
// cancel, ends the tree after its step. The old runtime finished the placement from A, without a
// lease, while B's step ran: a withdrawal elsewhere would then run unfenced beside it.
TEST(Cancel, ACancelSeenWhileYieldedEndsNoTreeAnotherHolderTookMeanwhile) {
  LeasesFixture f;
  int runs = 0;
  f.workflows.add(Workflow{
      "far", {StepItem{"far", [](ExecutionContext& c) { c.env().sleep(300 * kSecond); }}}});
  f.workflows.add(Workflow{"branch", {StepItem{"s", [&](ExecutionContext& c) {
                                                 if (++runs == 1) throw std::runtime_error("app");
                                                 c.env().sleep(20 * kSecond);
                                               }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"p", ChildPlacement::kParentInstance, "branch"},
                                       {"r", ChildPlacement::kAnyInstance, "far"}}}}});
  Instance& a = f.add_instance("A");
  Instance& b = f.add_instance("B");
  f.queue.place(kRoot, "w", std::nullopt);
  a.start();
  f.time.advance(5 * kSecond);
  ASSERT_EQ(runs, 1);
  ASSERT_TRUE(f.leases.read(kRoot).has_value());
  ASSERT_TRUE(f.leases.read(kRoot)->released);  // A's wait yielded the root's lease
  b.start();
  f.time.advance(3 * kSecond);
  ASSERT_EQ(runs, 2);  // B took the tree and runs the failed branch's step again
  ASSERT_EQ(f.leases.read(kRoot)->holder, "B");
  ASSERT_EQ(f.checkpoints.request_cancel(kRoot), CancelStatus::kRecorded);
  f.time.advance(12 * kSecond);  // A's watcher has seen the cancel; B's step still runs
  EXPECT_TRUE(holders_of(f, EventKind::kTreeCancelled, kRoot).empty());
  ASSERT_TRUE(f.queue.find(kRoot).has_value());
  EXPECT_FALSE(f.queue.find(kRoot)->finished);
  f.time.advance(60 * kSecond);
  EXPECT_EQ(holders_of(f, EventKind::kTreeCancelled, kRoot), std::vector<std::string>{"B"});
  EXPECT_TRUE(f.queue.find(kRoot)->finished);
}

}  // namespace
}  // namespace fencesim::runtime::cancel_test

namespace fencesim::runtime::cancel_test {
namespace {

// Red team re-read 2026-12-04, finding 6: "a cancel does not hide a lost lease" in confirmNow()
// too. The step's renewals never reach the store, so its lease runs out locally at 29.93 s; the
// client cancelled at 15 s and the watcher learnt of it at 20 s, before the loss. A confirm made
// at 35 s is a stale holder's: it throws the loss (execution.lease-lost), not the cancel, so the
// body does not run its cancel handling as a stale holder. The old confirm threw the cancel first.
TEST(Cancel, ConfirmNowOfAHolderWhoseLeaseRanOutThrowsTheLossNotTheCancel) {
  LeasesFixture f;
  std::exception_ptr confirm_failure;
  bool confirmed = false;
  f.workflows.add(Workflow{"w", {StepItem{"slow", [&](ExecutionContext& c) {
                                            c.env().sleep(35 * kSecond);
                                            try {
                                              (void)c.fence().confirm_now();
                                              confirmed = true;
                                            } catch (const std::exception&) {
                                              confirm_failure = std::current_exception();
                                            }
                                          }}}});
  f.add_instance("A");
  f.lease_calls("A").stall("renew:sent");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(15 * kSecond);
  ASSERT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  f.time.advance(25 * kSecond);
  ASSERT_GE(count_of(f, EventKind::kCancelSeen, kKey), 1u);
  EXPECT_FALSE(confirmed);
  EXPECT_TRUE(is<ExecutionLeaseLostError>(confirm_failure));
  EXPECT_FALSE(is<ExecutionCancelledError>(confirm_failure));
}

// Passes every event on to `inner` and runs `hook` once, at the first kConfirmSent: the moment a
// confirm's first cancel read is about to leave.
class AtConfirmSent final : public Observer {
 public:
  explicit AtConfirmSent(Observer& inner) : inner_(inner) {}
  void on_event(const RuntimeEvent& event) override {
    inner_.on_event(event);
    if (event.kind != EventKind::kConfirmSent || !hook) return;
    const std::function<void()> run = std::move(hook);
    hook = nullptr;
    run();
  }
  std::function<void()> hook;

 private:
  Observer& inner_;
};

// The same rule inside the confirm's cancel read (red team 38b-11): the lease was held and the
// cancel unseen when confirmNow() began; while its cancel read was out, the client cancelled and
// the lease ran out locally. The read comes back with the cancel, and the confirm throws the loss:
// the holder may be stale, and must not run its cancel handling. A check_cancel that read the
// cancel before the lease threw the cancel, and every sweep passed (the pass's own decision
// re-checks the lease, so only what the body is told differed).
TEST(Cancel, ALeaseLostWhileTheConfirmsCancelReadWasOutIsTheLossNotTheCancel) {
  LeasesFixture f;
  AtConfirmSent observer(f.events);
  const LeaseServices services{f.store_env, f.leases, observer, f.policy, "A"};
  const std::shared_ptr<HeldLease> lease = HeldLease::take(services, kKey);
  ASSERT_NE(lease, nullptr);
  auto cancel = std::make_shared<TreeCancel>(f.checkpoints, kKey);
  cancel->set_lease(lease);
  auto frame = std::make_shared<Frame>(
      Frame{FrameKind::kStep, kKey, "slow", lease, false, nullptr, cancel});
  observer.hook = [&] {
    EXPECT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
    lease->lose("local-expiry",
                std::make_exception_ptr(ExecutionLeaseLostError(kKey, lease->token())));
  };
  std::exception_ptr failure;
  try {
    (void)ExecutionFence(frame).confirm_now();
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  ASSERT_TRUE(cancel->seen());  // the read did bring the cancel
  EXPECT_TRUE(is<ExecutionLeaseLostError>(failure));
  EXPECT_FALSE(is<ExecutionCancelledError>(failure));
}

}  // namespace
}  // namespace fencesim::runtime::cancel_test

namespace fencesim::runtime::cancel_test {
namespace {

// Red team re-read 2026-12-04, finding 3: a withdrawal in a step's frame is decided with the
// pass's rules, among them "a cancel does not hide a lost lease". The client cancels at 15 s and the
// watcher aborts the step's signal with the cancel; the step's renewals never reach the store, so
// its lease runs out locally at 29.93 s while the step body still runs. A withdrawal made then in
// that step's frame, whose body throws the signal's reason (the cancel), is a stale holder's: it
// ends execution.lease-lost, not execution.cancelled. The old withdrawal decided the cancel alone.
TEST(Cancel, AWithdrawalOfAStaleHolderEndsLostNotCancelled) {
  const LeaseKey key{"tenant-1", "order-11"};
  LeasesFixture f;
  f.workflows.add(
      Workflow{"w", {StepItem{"slow", [](ExecutionContext& c) { c.env().sleep(100 * kSecond); }}}});
  Instance& a = f.add_instance("A");
  f.lease_calls("A").stall("renew:sent");
  f.queue.place(key, "w", std::nullopt);
  f.start_all();
  f.time.advance(15 * kSecond);
  ASSERT_EQ(f.checkpoints.request_cancel(key), CancelStatus::kRecorded);
  f.time.advance(20 * kSecond);  // 35 s: the cancel seen, the lease run out locally
  ASSERT_GE(count_of(f, EventKind::kCancelSeen, key), 1u);
  bool ran = false;
  const std::exception_ptr returned = a.withdraw(key, "slow", [&](ExecutionContext& c) {
    ran = true;
    c.signal().throw_if_aborted();
  });
  ASSERT_TRUE(ran);
  EXPECT_TRUE(is<ExecutionLeaseLostError>(returned));
  EXPECT_FALSE(is<ExecutionCancelledError>(returned));
  const RuntimeEvent* ended = f.events.last(EventKind::kWithdrawalEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost");
}

// A lease of kKey taken by "A" and watched by `cancel`, whose tree's cancel is then recorded and
// read: null if the take was refused.
std::shared_ptr<HeldLease> taken_and_cancelled(LeasesFixture& f, const LeaseServices& services,
                                               TreeCancel& cancel) {
  std::shared_ptr<HeldLease> lease = HeldLease::take(services, kKey);
  if (lease == nullptr) return nullptr;
  cancel.set_lease(lease);
  EXPECT_EQ(f.checkpoints.request_cancel(kKey), CancelStatus::kRecorded);
  cancel.read("test");
  return lease;
}

// A lease taken back after the cancel was seen (a remote-children wait's retake) runs no step
// either: its signal is aborted with the cancel as the pass hands it over. Red team 35c-15's
// TreeCancel aborted only the signal of the lease it held when it learnt of the cancel.
TEST(Cancel, ALeaseTakenBackAfterTheCancelWasSeenHasItsSignalAborted) {
  LeasesFixture f;
  const LeaseServices services{f.store_env, f.leases, f.events, f.policy, "A"};
  TreeCancel cancel(f.checkpoints, kKey);
  const std::shared_ptr<HeldLease> first = taken_and_cancelled(f, services, cancel);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(cancel.seen());
  EXPECT_TRUE(first->signal().aborted());
  first->release();
  std::shared_ptr<HeldLease> retaken = HeldLease::take(services, kKey);
  ASSERT_NE(retaken, nullptr);
  ASSERT_FALSE(retaken->signal().aborted());
  cancel.set_lease(retaken);
  ASSERT_TRUE(retaken->signal().aborted());
  EXPECT_NE(find_cancelled_ptr(retaken->signal().reason()), nullptr);
}

// A lease given back is not a lost one: a failure with the cancel's reason, decided under a lease
// its holder released (a cancel seen while the lease is yielded for a remote-children wait, or a
// withdrawal outliving its cancelled pass), ends the tree cancelled; a lease that ran out or was
// refused ends it lost (AWithdrawalOfAStaleHolderEndsLostNotCancelled). Red team 37b-15 decided
// every cancel under a lease not held now as a loss, and every sweep passed.
TEST(Cancel, ACancelDecidedUnderALeaseGivenBackIsTheCancelNotALoss) {
  LeasesFixture f;
  const LeaseServices services{f.store_env, f.leases, f.events, f.policy, "A"};
  TreeCancel cancel(f.checkpoints, kKey);
  const std::shared_ptr<HeldLease> lease = taken_and_cancelled(f, services, cancel);
  ASSERT_NE(lease, nullptr);
  ASSERT_TRUE(lease->signal().aborted());
  const std::exception_ptr reason = lease->signal().reason();
  EXPECT_EQ(decide_under_lease(reason, *lease).kind, FailureDecision::Kind::Cancelled)
      << "held: the cancel";
  lease->release();
  ASSERT_EQ(lease->state(), LeaseState::kReleased);
  const FailureDecision given_back = decide_under_lease(reason, *lease);
  EXPECT_EQ(given_back.kind, FailureDecision::Kind::Cancelled) << "given back: still the cancel";
  EXPECT_EQ(given_back.code, "execution.cancelled");
}

// A cancelled AnyInstance child has not completed: its parent waits for its children to complete,
// so a client's cancel of a child's tree (its own lease key) leaves the parent waiting at the
// group, never past it, and never completing its tree with that child's work undone (red team
// 39c-38 counted a cancelled child as done: the parent went on and committed its completion).
TEST(Cancel, ACancelledChildIsNotACompletedOne) {
  LeasesFixture f;
  const LeaseKey child = child_lease_key(kKey, "g/c");
  f.workflows.add(Workflow{"child", {StepItem{"work", [&](ExecutionContext& c) {
                                                c.env().sleep(2 * kSecond);
                                              }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g", {{"c", ChildPlacement::kAnyInstance, "child"}}},
                            StepItem{"after", [](ExecutionContext&) {}}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(500 * kMillisecond);  // the child is placed, its step runs
  ASSERT_TRUE(f.queue.find(child).has_value())
      << "no child placed under " << child.lease_execution_id;
  ASSERT_EQ(f.checkpoints.request_cancel(child), CancelStatus::kRecorded);
  f.time.advance(60 * kSecond);
  EXPECT_FALSE(f.checkpoints.load(child).tree_completed);
  EXPECT_EQ(started(f, "after"), 0u) << "the parent went past a group whose child was cancelled";
  EXPECT_EQ(count_of(f, EventKind::kTreeCompleted, kKey), 0u);
  EXPECT_FALSE(f.checkpoints.load(kKey).tree_completed);
}

}  // namespace
}  // namespace fencesim::runtime::cancel_test
