// Deviations from ADR-0023 found by review (issue 9 section 1), one test each: every test here
// fails on the runtime's old behaviour, kept as a mutant in mutants/.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/scope_key.h"
#include "runtime/testing/leases_fixture.h"
#include "runtime/testing/leases_route.h"
#include "runtime/tree_runner.h"

namespace fencesim::runtime::fence_deviations_test {
namespace {

using testing::LeasesFixture;

const LeaseKey kKey{"tenant-1", "run-9"};

template <typename Error>
bool threw(const std::exception_ptr& failure) {
  if (!failure) return false;
  try {
    std::rethrow_exception(failure);
  } catch (const Error&) {
    return true;
  } catch (...) {
    return false;
  }
}

// A lease store whose renewals can be made unreachable (a partition, a dropped request, an RPC
// timeout): the call throws StoreUnavailableError and its outcome is unknown.
class RenewalsDown final : public testing::LeasesRoute {
 public:
  using LeasesRoute::LeasesRoute;
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override {
    if (down) throw StoreUnavailableError("renew: no reply");
    return store_.renew(key, holder, token, ttl_ns);
  }
  bool down = false;
};

// A step's frame under a lease taken through `leases`, for calls made straight from the test.
std::shared_ptr<Frame> step_frame(LeasesFixture& f, ExecutionLeaseRepository& leases) {
  auto lease = HeldLease::take(LeaseServices{f.store_env, leases, f.events, f.policy, "A"}, kKey);
  return std::make_shared<Frame>(Frame{FrameKind::kStep, kKey, "s", lease, false, nullptr});
}

// Item 1: confirmNow is strict. A renewal the store did not grant (here: unreachable) throws
// lease-lost; the old belief, still in the future, is never returned.
TEST(Deviations, ConfirmNowThrowsWhenTheRenewalCannotReachTheStore) {
  LeasesFixture f;
  RenewalsDown leases(f.leases);
  auto frame = step_frame(f, leases);
  const ExecutionFence fence(frame);
  ASSERT_GT(fence.confirmed_until_ns(), f.time.now_ns());  // the old belief has not run out
  leases.down = true;
  // Not reached is not lost (issue 29 item 6): the confirm fails, but not with the hand-over
  // error, and the lease stays held.
  EXPECT_THROW(fence.confirm_now(), StoreUnavailableError);
  try {
    (void)fence.confirm_now();
  } catch (const ExecutionLeaseLostError&) {
    ADD_FAILURE() << "a confirm that did not reach the store reported the lease lost";
  } catch (const StoreUnavailableError& error) {
    EXPECT_NE(std::string(error.what()).find(fence.scope_key()), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(frame->lease->state(), LeaseState::kHeld);
  EXPECT_NO_THROW(fence.assert_held());
  leases.down = false;
  EXPECT_GT(fence.confirm_now(), f.time.now_ns());  // granted again: it returns
}

// A lease store that answers renewals with one refusal, as a store that lost the key's row, saw a
// later epoch, or judged the lease expired, released or another's would.
class RenewalsRefused final : public testing::LeasesRoute {
 public:
  RenewalsRefused(ExecutionLeaseRepository& store, RenewStatus answer)
      : LeasesRoute(store), answer_(answer) {}
  RenewResult renew(const LeaseKey&, const HolderId&, Token, Nanoseconds) override {
    return RenewResult{answer_, std::nullopt};
  }

 private:
  RenewStatus answer_;
};

// A renewal the store answered with a refusal loses the lease at once, whatever the refusal: only
// a store that cannot be reached leaves the holder to its local expiry (the test above). A store
// that no longer knows the key (it lost the row) may grant the key to anyone now, so a holder that
// went on believing would be a second holder.
TEST(Deviations, EveryRefusalOfARenewalLosesTheLeaseAtOnce) {
  for (const RenewStatus answer : {RenewStatus::kUnknownKey, RenewStatus::kStale,
                                   RenewStatus::kExpired, RenewStatus::kReleased,
                                   RenewStatus::kNotHolder}) {
    LeasesFixture f;
    RenewalsRefused leases(f.leases, answer);
    auto frame = step_frame(f, leases);
    const ExecutionFence fence(frame);
    ASSERT_GT(fence.confirmed_until_ns(), f.time.now_ns());  // the old belief has not run out
    EXPECT_THROW(fence.confirm_now(), ExecutionLeaseLostError) << to_string(answer);
    EXPECT_NE(frame->lease->state(), LeaseState::kHeld) << to_string(answer);
    EXPECT_THROW(fence.assert_held(), ExecutionLeaseLostError) << to_string(answer);
    EXPECT_LE(fence.confirmed_until_ns(), f.time.now_ns()) << to_string(answer);
  }
}

// Item 8: fenced(observed) with observed not later than the own token (a system that reports a
// wrong high-water mark) stops the holder and is a hand-over, not an internal CheckFailure.
TEST(Deviations, FencedWithANonLaterObservedTokenStopsTheHolderAsAHandOver) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  ASSERT_EQ(fence.token(), 1u);
  std::exception_ptr thrown;
  try {
    throw fence.fenced(1);
  } catch (const std::exception&) {
    thrown = std::current_exception();
  }
  EXPECT_TRUE(threw<ExecutionFencedError>(thrown));
  EXPECT_EQ(frame->lease->state(), LeaseState::kLost);
  EXPECT_EQ(frame->lease->lost_reason(), "fenced");
  const FailureDecision decision = decide_failure(thrown, frame->lease->signal().reason());
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Fenced);
  EXPECT_EQ(decision.code, "execution.lease-lost.fenced");
}

// Issue 29 item 4: a refusing system that reports an observed token above 2^53-1 (no token: the
// ADR's tokens are safe integers) still refused. The refusal is a hand-over: the holder is stopped
// with the fenced error, whose observed token stays a safe integer; nothing throws before the stop.
TEST(Deviations, FencedWithAnObservedTokenAboveTheSafeRangeStopsTheHolder) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  std::exception_ptr thrown;
  try {
    throw fence.fenced(kTokenMax + 1);
  } catch (const std::exception&) {
    thrown = std::current_exception();
  }
  ASSERT_TRUE(threw<ExecutionFencedError>(thrown)) << error_code(thrown);
  EXPECT_EQ(frame->lease->state(), LeaseState::kLost);
  EXPECT_EQ(frame->lease->lost_reason(), "fenced");
  const std::optional<ExecutionFencedError> fenced = find_fenced(thrown);
  ASSERT_TRUE(fenced.has_value());
  EXPECT_LE(fenced->observed_token(), kTokenMax);
  const FailureDecision decision = decide_failure(thrown, frame->lease->signal().reason());
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Fenced);
}

// A sink whose refusals report a high-water token above 2^53-1.
class OverflowingSink final : public Sink {
 public:
  const std::string& name() const override { return name_; }
  SinkReply write(const SinkWrite&) override {
    return SinkReply{SinkOutcome::kRefused, kTokenMax + 1};
  }

 private:
  std::string name_ = "overflowing";
};

// Issue 29 item 4, inside write(): the reply fiber stops the holder and wakes the caller, so the
// step ends fenced at once (it used to die before waking the caller, and the step blocked for as
// long as renewals succeeded).
TEST(Deviations, WriteRefusedWithAnObservedTokenAboveTheSafeRangeEndsTheStepFenced) {
  LeasesFixture f;
  OverflowingSink sink;
  f.workflows.add(Workflow{"w", {StepItem{"charge", [&](ExecutionContext& c) {
                                   c.fence().write(sink, "charge", "42");
                                 }}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(2 * kSecond);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost.fenced");
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost, "A");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "fenced");
}

// A checkpoint store whose step refusals report an epoch above 2^53-1.
class OverflowingCheckpoints final : public CheckpointStore {
 public:
  explicit OverflowingCheckpoints(CheckpointStore& target) : target_(target) {}
  CommitResult commit_step(const LeaseKey&, Token, const std::string&) override {
    return CommitResult{CommitStatus::kRefused, kTokenMax + 1};
  }
  CommitResult commit_tree(const LeaseKey& key, Token token) override {
    return target_.commit_tree(key, token);
  }
  Checkpoint load(const LeaseKey& key) override { return target_.load(key); }
  CancelStatus request_cancel(const LeaseKey& key) override { return target_.request_cancel(key); }

 private:
  CheckpointStore& target_;
};

// Issue 29 item 4, the pass's own refusal: a checkpoint refusal reporting an epoch above 2^53-1
// stops the holder and ends the step fenced, not with an internal check failure.
TEST(Deviations, CheckpointRefusedWithAnEpochAboveTheSafeRangeEndsTheStepFenced) {
  LeasesFixture f;
  OverflowingCheckpoints checkpoints(f.checkpoints);
  f.workflows.add(Workflow{"w", {StepItem{"s", [](ExecutionContext&) {}}}});
  InstanceOptions options;
  options.holder = "C";
  Instance c(f.store_env, f.leases, checkpoints, f.queue, f.workflows, f.events, options);
  f.queue.place(kKey, "w", std::nullopt);
  c.start();
  f.time.advance(2 * kSecond);
  c.stop();
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "C");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost.fenced");
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost, "C");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "fenced");
}

std::size_t started_count(const LeasesFixture& f, const std::string& step) {
  std::size_t n = 0;
  for (const RuntimeEvent& e : f.events.events()) {
    n += e.kind == EventKind::kStepStarted && e.step == step;
  }
  return n;
}

// A lease store whose renewals take 100 ms to come back.
class SlowRenewals final : public testing::LeasesRoute {
 public:
  SlowRenewals(Env& env, ExecutionLeaseRepository& target) : LeasesRoute(target), env_(env) {}
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override {
    env_.sleep(100 * kMillisecond);
    return store_.renew(key, holder, token, ttl_ns);
  }

 private:
  Env& env_;
};

// Issue 29 item 3: a confirm made by a fiber the step started outlives the step across its
// renewal's round trip, while the pass still holds the lease for the next step. It must not
// return success in the name of the ended step: the fence, read again after the round trip,
// refuses (a fence kept past its step refuses).
TEST(Deviations, ConfirmNowOutlivedByItsStepRefuses) {
  LeasesFixture f;
  SlowRenewals leases(f.store_env, f.leases);
  std::exception_ptr helper_failure;
  bool helper_confirmed = false;
  bool helper_done = false;
  f.workflows.add(Workflow{
      "w", {StepItem{"notify",
                     [&](ExecutionContext& c) {
                       c.env().spawn("helper", [&, fence = c.fence()] {
                         try {
                           (void)fence.confirm_now();
                           helper_confirmed = true;
                         } catch (const std::exception&) {
                           helper_failure = std::current_exception();
                         }
                         helper_done = true;
                       });
                       c.env().sleep(10 * kMillisecond);  // returns while the renewal is out
                     }},
            StepItem{"pack", [](ExecutionContext& c) { c.env().sleep(5 * kSecond); }}}});
  f.add_instance("A", &leases);
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(kSecond);
  ASSERT_TRUE(helper_done);
  ASSERT_EQ(started_count(f, "pack"), 1u);  // the lease is held: the next step runs under it
  EXPECT_FALSE(helper_confirmed);
  EXPECT_TRUE(threw<ExecutionContextUnavailableError>(helper_failure))
      << error_code(helper_failure);
}

// Item 9: once the lease is lost, confirmedUntil is no later than the moment it was lost.
TEST(Deviations, ConfirmedUntilIsNotInTheFutureAfterTheLeaseWasLost) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  f.time.advance(kSecond);
  ASSERT_GT(fence.confirmed_until_ns(), f.time.now_ns());
  (void)fence.fenced(2);
  EXPECT_LE(fence.confirmed_until_ns(), f.time.now_ns());
  EXPECT_LE(frame->lease->confirmed_until_ns(), f.time.now_ns());
}

// Item 9, a belief that ran out: reading confirmedUntil past it is a look at the lease, and ends
// it there (lost, local expiry) as assert_held would, without waiting for the expiry's timer (here
// never started, as in a process frozen past its expiry whose timers have not run yet). Red team
// 35c-11's fence returned the stored belief and left the lease held.
TEST(Deviations, ReadingConfirmedUntilPastTheBeliefEndsTheLease) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  const Nanoseconds believed = fence.confirmed_until_ns();
  ASSERT_EQ(frame->lease->state(), LeaseState::kHeld);
  f.time.advance(believed + kSecond);
  EXPECT_LE(fence.confirmed_until_ns(), f.time.now_ns());
  EXPECT_EQ(frame->lease->state(), LeaseState::kLost);
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost, "A");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "local-expiry");
}

// ADR-0023, Consequences: a stale step ends with ExecutionLeaseLostError, whatever it failed with.
// A holder frozen past its belief whose step fails with an error of its own first thing at the
// resume (nothing has looked at the lease since) is decided lease-lost, and the lease is lost.
TEST(Deviations, AFailureAfterAnUnnoticedExpiryIsDecidedLost) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  const Nanoseconds believed = fence.confirmed_until_ns();
  f.time.advance(believed + kSecond);
  ASSERT_EQ(frame->lease->state(), LeaseState::kHeld);  // nothing has noticed yet
  const FailureDecision decision = decide_under_lease(
      std::make_exception_ptr(std::runtime_error("inventory: deadline exceeded")), *frame->lease);
  // Decided by the signal's reason, which the loss set: the loss itself, not the step's error.
  EXPECT_EQ(decision.code, "execution.lease-lost");
  EXPECT_TRUE(threw<ExecutionLeaseLostError>(decision.error));
  EXPECT_EQ(frame->lease->state(), LeaseState::kLost);
}

// Item 9, the release path: a lease given back is not believed past the release either.
TEST(Deviations, ConfirmedUntilIsNotInTheFutureAfterTheLeaseWasReleased) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  frame->lease->release();
  EXPECT_LE(frame->lease->confirmed_until_ns(), f.time.now_ns());
}

// A lease given back aborts its signal: whatever still runs under it (a withdrawal in the step's
// frame outliving the pass, a fiber the step spawned) is told the lease is gone and stops, as at a
// loss (red team 37b-16 released without aborting: a lingering withdrawal went on to its end, and
// only a mark's floor in a long sweep noticed).
TEST(Deviations, AReleaseAbortsTheLeasesSignal) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  ASSERT_FALSE(frame->lease->signal().aborted());
  frame->lease->release();
  ASSERT_TRUE(frame->lease->signal().aborted());
  EXPECT_NE(find_lease_lost_ptr(frame->lease->signal().reason()), nullptr);
}

// Found by the session 12 sanitizer sweep (swarm seed 6600): a write left in flight when a
// remote-children wait gave the lease back is refused while the lease is yielded. The refusal is
// kept as the error that ended the lease, so that the pass, deciding when its retake is refused,
// ends fenced (the fence comes before the abort reason), not lease-lost.
TEST(Deviations, RefusalLandingAfterAYieldIsKeptForTheDecision) {
  LeasesFixture f;
  auto frame = step_frame(f, f.leases);
  const ExecutionFence fence(frame);
  frame->lease->release();
  EXPECT_TRUE(threw<ExecutionLeaseLostError>(frame->lease->lost_error()));
  EXPECT_FALSE(threw<ExecutionFencedError>(frame->lease->lost_error()));
  (void)fence.fenced(2);  // what the write's fiber does with the sink's refusal
  EXPECT_EQ(frame->lease->lost_reason(), "fenced");
  EXPECT_TRUE(threw<ExecutionFencedError>(frame->lease->lost_error()));
  EXPECT_EQ(frame->lease->state(), LeaseState::kReleased);
  // And the decision weighs it: a failure decided under the released lease (the pass that gave it
  // back, deciding when its retake is refused) ends fenced and stops the holder of that token, not
  // lease-lost with the plain error (red team 37b-27 looked for a late refusal under a lost lease
  // only).
  const FailureDecision decision = decide_under_lease(
      std::make_exception_ptr(std::runtime_error("the retake was refused")), *frame->lease);
  EXPECT_EQ(decision.kind, FailureDecision::Kind::Fenced);
  EXPECT_EQ(decision.code, "execution.lease-lost.fenced");
  ASSERT_TRUE(decision.stop_token.has_value());
  EXPECT_EQ(*decision.stop_token, frame->lease->token());
}

// Item 5: a fence used from another fiber (spawned by the step) across a suspension: the refusal
// arrives after the step ended, and still stops the holder and throws the fenced error.
TEST(Deviations, RefusalArrivingAfterTheStepEndedStopsTheHolder) {
  LeasesFixture f;
  class SlowSink final : public Sink {
   public:
    SlowSink(Env& env, Sink& target) : env_(env), target_(target) {}
    const std::string& name() const override { return target_.name(); }
    SinkReply write(const SinkWrite& write) override {
      env_.sleep(2 * kSecond);
      return target_.write(write);
    }

   private:
    Env& env_;
    Sink& target_;
  } slow(f.store_env, f.sink);
  std::exception_ptr spawned_failure;
  bool spawned_done = false;
  // The step ends at once and the pass goes on to its next step under the same lease, which the
  // late refusal must stop (a unit runner's run would have given the lease back already).
  const StepBody first = [&](ExecutionContext& ctx) {
    const ExecutionFence fence = ctx.fence();
    ctx.env().spawn("helper", [&, fence] {
      try {
        fence.write(slow, "charge", "late");
      } catch (const std::exception&) {
        spawned_failure = std::current_exception();
      }
      spawned_done = true;
    });
    ctx.env().yield();  // the helper's write leaves while the step runs
    // A newer holder's write (token 2) lands at the sink first.
    f.sink.write(SinkWrite{ctx.fence().scope_key(), 2, "other", "newer"});
  };
  const StepBody second = [](ExecutionContext& ctx) { ctx.env().sleep(10 * kSecond); };
  f.workflows.add(Workflow{"w", {StepItem{"first", first}, StepItem{"second", second}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(3 * kSecond);
  ASSERT_TRUE(spawned_done);
  EXPECT_TRUE(threw<ExecutionFencedError>(spawned_failure));
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "fenced");
}

// Item 7: step paths encode their names: a name holding '/' cannot pose as two levels, and names
// holding ':' or '%' stay apart.
TEST(Deviations, StepPathsEncodeTheirNames) {
  EXPECT_NE(join_path("g", "a/b"), join_path(join_path("g", "a"), "b"));
  EXPECT_NE(join_path("", "a%2Fb"), join_path("", "a/b"));
  EXPECT_NE(join_path("a:b", "c"), join_path("a", "b:c"));
  EXPECT_EQ(join_path(join_path("g", "one"), "s"), "g/one/s");  // plain names pass unchanged
}

// Item 7: an AnyInstance child's key encodes its parts and can never be a root's key.
TEST(Deviations, ChildLeaseKeysEncodeTheirPartsAndAreNoRootsKey) {
  const LeaseKey parent{"tenant-1", "order-1"};
  const LeaseKey child = child_lease_key(parent, join_path("g", "x"));
  EXPECT_EQ(child.tenant_id, "tenant-1");
  EXPECT_NE(child.lease_execution_id, "order-1/g/x");
  EXPECT_NE(child_lease_key(parent, join_path("g", "a/b")),
            child_lease_key(parent, join_path(join_path("g", "a"), "b")));
  EXPECT_NE(child_lease_key(LeaseKey{"t", "a/g"}, "x"), child_lease_key(LeaseKey{"t", "a"}, "g/x"));
  MemoryPlacementQueue queue;
  EXPECT_THROW(queue.place(child, "w", std::nullopt), PlacementError);
  EXPECT_NO_THROW(queue.place(child, "w", parent));
}

// Item 7: a root whose execution id is what the old child key was ("order-1/g/x") and the tree
// order-1 with its AnyInstance child x in group g are two trees: both run their own steps.
TEST(Deviations, RootNamedLikeAChildPathRunsApartFromTheChild) {
  LeasesFixture f;
  std::vector<std::string> ran;
  f.workflows.add(Workflow{"other", {StepItem{"o", [&](ExecutionContext&) { ran.push_back("o"); }}}});
  f.workflows.add(Workflow{"child", {StepItem{"c", [&](ExecutionContext&) { ran.push_back("c"); }}}});
  f.workflows.add(
      Workflow{"w", {GroupItem{"g", {{"x", ChildPlacement::kAnyInstance, "child"}}}}});
  f.add_instance("A");
  f.queue.place(LeaseKey{"tenant-1", "order-1/g/x"}, "other", std::nullopt);
  f.queue.place(LeaseKey{"tenant-1", "order-1"}, "w", std::nullopt);
  f.start_all();
  f.time.advance(20 * kSecond);
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, (std::vector<std::string>{"c", "o"}));
  EXPECT_TRUE(f.checkpoints.load(LeaseKey{"tenant-1", "order-1"}).tree_completed);
  EXPECT_TRUE(f.checkpoints.load(LeaseKey{"tenant-1", "order-1/g/x"}).tree_completed);
}

// Item 2: a withdrawal while the tree is live, for a step not running here (between steps, or on
// another instance), is refused with a clear error; its body never runs unfenced.
TEST(Deviations, WithdrawalWhileTheTreeIsLiveIsRefused) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {StepItem{"a", [](ExecutionContext&) {}},
                                 StepItem{"b", [](ExecutionContext& c) { c.env().sleep(10 * kSecond); }}}});
  Instance& a = f.add_instance("A");
  Instance& b = f.add_instance("B");
  f.queue.place(kKey, "w", std::nullopt);
  a.start();
  f.time.advance(2 * kSecond);  // "a" committed, "b" runs on A
  int ran = 0;
  const std::exception_ptr on_a = a.withdraw(kKey, "a", [&](ExecutionContext&) { ++ran; });
  const std::exception_ptr on_b = b.withdraw(kKey, "b", [&](ExecutionContext&) { ++ran; });
  EXPECT_EQ(ran, 0);
  EXPECT_TRUE(threw<WithdrawalRefusedError>(on_a));
  EXPECT_TRUE(threw<WithdrawalRefusedError>(on_b));
  EXPECT_EQ(error_code(on_a), "execution.context-unavailable.withdrawal-refused");
  EXPECT_EQ(f.events.count(EventKind::kWithdrawalRefused), 2u);
  EXPECT_EQ(f.events.count(EventKind::kWithdrawal), 0u);
  // Inside the step it runs fenced; after the tree ended, unfenced.
  EXPECT_FALSE(a.withdraw(kKey, "b", [&](ExecutionContext& c) { ran += c.fence().token() == 1; }));
  f.time.advance(20 * kSecond);
  ASSERT_TRUE(f.checkpoints.load(kKey).tree_completed);
  EXPECT_FALSE(b.withdraw(kKey, "b", [&](ExecutionContext&) { ++ran; }));
  EXPECT_EQ(ran, 2);
}

// A checkpoint store that cannot be reached.
class UnreachableCheckpoints final : public CheckpointStore {
 public:
  CommitResult commit_step(const LeaseKey&, Token, const std::string&) override { throw down(); }
  CommitResult commit_tree(const LeaseKey&, Token) override { throw down(); }
  Checkpoint load(const LeaseKey&) override { throw down(); }
  CancelStatus request_cancel(const LeaseKey&) override { throw down(); }

 private:
  static StoreUnavailableError down() { return StoreUnavailableError("checkpoints: no reply"); }
};

// Item 2: an unreachable checkpoint store does not say the tree ended: refused.
TEST(Deviations, WithdrawalIsRefusedWhenTheTreesEndCannotBeRead) {
  LeasesFixture f;
  UnreachableCheckpoints checkpoints;
  InstanceOptions options;
  options.holder = "C";
  Instance c(f.store_env, f.leases, checkpoints, f.queue, f.workflows, f.events, options);
  bool ran = false;
  EXPECT_TRUE(threw<WithdrawalRefusedError>(
      c.withdraw(kKey, "a", [&](ExecutionContext&) { ran = true; })));
  EXPECT_FALSE(ran);
}

// Item 4: a withdrawal's failure is decided like a step's: a refusal inside it stops the holder of
// its token and is reported classified; nothing escapes unclassified.
TEST(Deviations, WithdrawalFailureIsDecidedAndItsRefusalStopsTheHolder) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {StepItem{"s", [](ExecutionContext& c) { c.env().sleep(10 * kSecond); }}}});
  Instance& a = f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  a.start();
  f.time.advance(2 * kSecond);
  f.sink.write(SinkWrite{make_scope_key(kKey), 2, "other", "newer"});  // a later holder wrote
  std::exception_ptr returned;
  EXPECT_NO_THROW(returned = a.withdraw(kKey, "s", [&](ExecutionContext& c) {
    throw StepError("refund failed", [&] {
      try {
        c.fence().write(f.sink, "refund", "stale");
      } catch (const std::exception&) {
        return std::current_exception();
      }
      return std::exception_ptr();
    }());
  }));
  EXPECT_TRUE(threw<ExecutionFencedError>(returned));  // the fenced error itself, not the wrapper
  const RuntimeEvent* classified = f.events.last(EventKind::kWithdrawalEnded, "A");
  ASSERT_NE(classified, nullptr);
  EXPECT_EQ(classified->detail, "execution.lease-lost.fenced");
  EXPECT_EQ(classified->step, "s");
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost, "A");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "fenced");
}

// Item 4: a plain failure of a withdrawal's body is classified and returned, not thrown.
TEST(Deviations, WithdrawalPlainFailureIsClassifiedNotThrown) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {StepItem{"s", [](ExecutionContext&) {}}}});
  Instance& a = f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  a.start();
  f.time.advance(5 * kSecond);
  ASSERT_TRUE(f.checkpoints.load(kKey).tree_completed);
  std::exception_ptr returned;
  EXPECT_NO_THROW(returned = a.withdraw(kKey, "s", [](ExecutionContext&) {
    throw std::runtime_error("mail server down");
  }));
  EXPECT_EQ(error_code(returned), "error");
  EXPECT_EQ(f.events.last(EventKind::kWithdrawalEnded, "A")->detail, "error");
}

// Item 12: at the lease's own local expiry a step's fenced write returns at the abort with
// ExecutionLeaseLostError, bounded by the expiry, instead of waiting for the reply; the request
// stays in flight and lands on its own.
TEST(Deviations, WriteInFlightAtLocalExpiryReturnsAtTheAbort) {
  LeasesFixture f;
  RenewalsDown leases(f.leases);
  class SlowSink final : public Sink {  // a reply 90 s late (the RPC's own timeout)
   public:
    explicit SlowSink(Sink& target) : target_(target) {}
    const std::string& name() const override { return target_.name(); }
    SinkReply write(const SinkWrite& write) override {
      env->sleep(90 * kSecond);
      return target_.write(write);
    }
    Env* env = nullptr;

   private:
    Sink& target_;
  } slow(f.sink);
  f.workflows.add(Workflow{"w", {StepItem{"charge", [&](ExecutionContext& c) {
                                   slow.env = &c.env();
                                   c.fence().write(slow, "charge", "42");
                                 }}}});
  f.add_instance("A", &leases);
  leases.down = true;  // no renewal is granted: the lease expires locally during the write
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(f.policy.ttl_ns + kSecond);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);  // ended at the abort, not 90 s later
  EXPECT_EQ(ended->detail, "execution.lease-lost");
  EXPECT_EQ(f.sink.effects().size(), 0u);
  f.time.advance(90 * kSecond);
  EXPECT_EQ(f.sink.effects().size(), 1u);  // the request landed on its own
  EXPECT_GE(f.events.count(EventKind::kWriteAccepted, "A"), 1u);
}


// Sweep finding (swarm, pct, seed 511): a ParentInstance branch's step outlived the root's lease
// while the root waited for a remote child. The wait then "yielded" the lost lease, retook the
// tree under a new token inside the same pass, and decided the branch's failure (made under token
// 1) against the new lease. A lost lease ends the wait with its loss: the pass is decided under
// its own token, and only a later pass takes the tree again.
TEST(Deviations, RemoteWaitEndsWithTheLossOfItsLeaseAndNeverRetakesIt) {
  LeasesFixture f;
  RenewalsDown leases(f.leases);
  f.workflows.add(Workflow{"slow", {StepItem{"slow", [](ExecutionContext& c) {
                                      c.env().sleep(60 * kSecond);
                                    }}}});
  f.workflows.add(Workflow{"remote", {StepItem{"r", [](ExecutionContext& c) {
                                        c.env().sleep(80 * kSecond);
                                      }}}});
  f.workflows.add(Workflow{"w", {GroupItem{"g",
                                           {{"branch", ChildPlacement::kParentInstance, "slow"},
                                            {"child", ChildPlacement::kAnyInstance, "remote"}}}}});
  f.add_instance("A", &leases);
  leases.down = true;  // no renewal is granted: the root's lease expires locally mid-branch
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(f.policy.ttl_ns + 5 * kSecond);
  leases.down = false;  // the child's next pass completes it, so a retake would be possible
  f.time.advance(200 * kSecond);
  const RuntimeEvent* first_decision = nullptr;
  std::size_t root_takes = 0;
  for (const RuntimeEvent& e : f.events.events()) {
    if (e.key != kKey) continue;
    if (e.kind == EventKind::kLeaseTaken && first_decision == nullptr) ++root_takes;
    if (e.kind == EventKind::kErrorClassified && first_decision == nullptr) first_decision = &e;
    if (first_decision == nullptr) {
      EXPECT_NE(e.kind, EventKind::kRemoteWaitEnded);
    }
  }
  ASSERT_NE(first_decision, nullptr);
  EXPECT_EQ(first_decision->token, 1u);  // decided under the lease the branch lost
  EXPECT_EQ(first_decision->detail, "execution.lease-lost");
  EXPECT_EQ(root_takes, 1u);  // the pass never took the tree again
  EXPECT_TRUE(f.checkpoints.load(kKey).tree_completed);  // a later pass completed it
}

}  // namespace
}  // namespace fencesim::runtime::fence_deviations_test

namespace fencesim::runtime::fence_deviations_test {
namespace {

// Red team re-read 2026-12-04, finding 2: ADR-0023, "the holder of its token is stopped with it"
// and "(a fence kept past its step refuses)". A step hands its call to a helper fiber and returns;
// the refusal comes after the step ended, and the helper hands it over by hand with
// fence.fenced(observed), as the ADR describes. The fence refuses (its step ended), but the
// refusal still stops the holder of the step's token: the next step does not go on under the
// refused token. The old fence threw ExecutionContextUnavailableError before stopping anybody,
// and the pass ran its next step, and the tree completed, under the refused token.
TEST(Deviations, FencedAfterItsStepEndedStillStopsTheHolder) {
  LeasesFixture f;
  std::exception_ptr helper_failure;
  bool helper_done = false;
  f.workflows.add(Workflow{
      "w", {StepItem{"notify",
                     [&](ExecutionContext& c) {
                       c.env().spawn("helper", [&, fence = c.fence(), &env = c.env()] {
                         env.sleep(500 * kMillisecond);  // the refusal lands after the step
                         try {
                           (void)fence.fenced(7);
                         } catch (const std::exception&) {
                           helper_failure = std::current_exception();
                         }
                         helper_done = true;
                       });
                     }},
            StepItem{"pack", [](ExecutionContext& c) { c.env().sleep(5 * kSecond); }}}});
  f.add_instance("A");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(kSecond);
  ASSERT_TRUE(helper_done);
  EXPECT_TRUE(threw<ExecutionContextUnavailableError>(helper_failure))
      << error_code(helper_failure);
  f.time.advance(10 * kSecond);
  // The holder of token 1 was stopped: the step under it ends fenced, the tree does not complete.
  EXPECT_FALSE(f.checkpoints.load(kKey).tree_completed);
  const RuntimeEvent* lost = f.events.last(EventKind::kLeaseLost);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->detail, "fenced");
  EXPECT_EQ(lost->token, 1u);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded);
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->step, "pack");
  EXPECT_EQ(ended->detail, std::string(ExecutionFencedError::kCode));
}

}  // namespace
}  // namespace fencesim::runtime::fence_deviations_test
