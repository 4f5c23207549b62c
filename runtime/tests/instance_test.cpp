// Instance rules of ADR-0023: at-least-once steps, fenced checkpoints, takeover, placements, the
// remote-children wait, withdrawals and failure decisions, on the leases fixture.
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/testing/leases_fixture.h"
#include "runtime/testing/leases_route.h"

namespace fencesim::runtime::instance_test {
namespace {

using testing::LeasesFixture;

const LeaseKey kRoot{"tenant-1", "order-1"};

StepItem work(const std::string& name, Nanoseconds duration) {
  return StepItem{name, [duration](ExecutionContext& ctx) { ctx.env().sleep(duration); }};
}

std::vector<std::string> steps_started_by(const LeasesFixture& f, const std::string& holder) {
  std::vector<std::string> out;
  for (const RuntimeEvent& e : f.events.events()) {
    if (e.kind == EventKind::kStepStarted && e.holder == holder) out.push_back(e.step);
  }
  return out;
}

TEST(Instance, RunsATreeAndCheckpointsEveryStepUnderItsToken) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("a", kSecond), work("b", kSecond)}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(10 * kSecond);
  const Checkpoint checkpoint = f.checkpoints.load(kRoot);
  EXPECT_TRUE(checkpoint.tree_completed);
  EXPECT_EQ(checkpoint.completed_steps, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(checkpoint.last_token, 1u);
  EXPECT_EQ(f.events.count(EventKind::kTreeCompleted), 1u);
  EXPECT_EQ(f.events.count(EventKind::kStoreLeaseReleased), 1u);
  EXPECT_TRUE(f.time.fiber_errors().empty());
}

TEST(Instance, RenewsItsLeaseOnATimerWhileAStepRuns) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("long", 95 * kSecond)}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(100 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  EXPECT_GE(f.events.count(EventKind::kStoreLeaseRenewed), 9u);
  EXPECT_EQ(f.events.count(EventKind::kLeaseLost), 0u);
}

TEST(Instance, TakeoverResumesFromTheLastCheckpointWithTheNextToken) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("a", kSecond), work("b", 5 * kSecond), work("c", kSecond)}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.env_of("A");
  f.start_all();
  f.time.advance(3 * kSecond);  // A committed "a" and runs "b"
  f.env_of("A").stall();        // a GC pause far past the lease
  f.add_instance("B").start();
  f.time.advance(60 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  EXPECT_EQ(steps_started_by(f, "B"), (std::vector<std::string>{"b", "c"}));
  ASSERT_NE(f.events.last(EventKind::kLeaseTaken, "B"), nullptr);
  EXPECT_EQ(f.events.last(EventKind::kLeaseTaken, "B")->token, 2u);
  f.env_of("A").resume();
  f.time.advance(10 * kSecond);
  // A's step "b" cannot succeed: its lease expired locally before its outcome committed.
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->step, "b");
  EXPECT_EQ(ended->detail, "execution.lease-lost");
  EXPECT_EQ(f.events.count(EventKind::kStoreCheckpointCommitted), 4u);  // a, b, c, tree
}

TEST(Instance, StaleCheckpointWriteIsRefusedByToken) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("a", kSecond)}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(0);
  // The store's clock runs ahead so it expires A's lease while A believes it holds it; B takes.
  f.store_env.step_wall_clock(f.policy.ttl_ns);
  ASSERT_EQ(f.leases.take(kRoot, "B", f.policy.ttl_ns).lease.token, 2u);
  f.time.advance(2 * kSecond);
  EXPECT_EQ(f.events.count(EventKind::kStoreCheckpointRefused), 1u);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost.fenced");
  EXPECT_TRUE(f.checkpoints.load(kRoot).completed_steps.empty());
}

TEST(Instance, StaleWriteInFlightDuringAPauseIsRefusedAfterTakeover) {
  LeasesFixture f;
  class Link final : public Sink {  // a write spends 2 s on its way
   public:
    Link(Env& env, Sink& target) : env_(env), target_(target) {}
    const std::string& name() const override { return target_.name(); }
    SinkReply write(const SinkWrite& w) override {
      env_.sleep(2 * kSecond);
      return target_.write(w);
    }
    Env& env_;
    Sink& target_;
  };
  std::map<const Env*, std::unique_ptr<Link>> links;
  f.workflows.add(Workflow{"w", {StepItem{"charge", [&](ExecutionContext& ctx) {
                                            ctx.env().sleep(kSecond);
                                            ctx.fence().write(*links.at(&ctx.env()), "charge", "42");
                                          }}}});
  Instance& a = f.add_instance("A");
  Instance& b = f.add_instance("B");
  links[&f.env_of("A")] = std::make_unique<Link>(f.env_of("A"), f.sink);
  links[&f.env_of("B")] = std::make_unique<Link>(f.env_of("B"), f.sink);
  f.queue.place(kRoot, "w", std::nullopt);
  a.start();
  f.time.advance(1500 * kMillisecond);  // A's write (token 1) left at 1 s and is on its way
  ASSERT_EQ(f.events.count(EventKind::kWriteSent, "A"), 1u);
  f.env_of("A").stall();
  b.start();
  f.time.advance(60 * kSecond);  // B takes token 2 after the store's expiry, re-runs, writes
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  f.env_of("A").resume();
  f.time.advance(10 * kSecond);
  EXPECT_EQ(f.events.count(EventKind::kSinkRefused), 1u);
  ASSERT_EQ(f.sink.effects().size(), 1u);
  EXPECT_EQ(f.sink.effects()[0].token, 2u);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost.fenced");
}

TEST(Placement, ParentInstanceAndThisWorkflowRunUnderTheRootsLease) {
  LeasesFixture f;
  std::vector<std::string> scopes;
  auto record =
      StepItem{"record", [&](ExecutionContext& ctx) { scopes.push_back(ctx.fence().scope_key()); }};
  f.workflows.add(Workflow{"child", {record}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"p", ChildPlacement::kParentInstance, "child"},
                                       {"t", ChildPlacement::kThisWorkflow, "child"}}}}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  EXPECT_EQ(scopes, (std::vector<std::string>{"tenant-1:order-1", "tenant-1:order-1"}));
  EXPECT_EQ(f.checkpoints.load(kRoot).completed_steps,
            (std::set<std::string>{"g/p/record", "g/t/record"}));
}

TEST(Placement, AnyInstanceChildFencesWithItsOwnLease) {
  LeasesFixture f;
  std::vector<std::pair<std::string, Token>> fences;
  f.workflows.add(Workflow{"child", {StepItem{"write", [&](ExecutionContext& ctx) {
                                                fences.emplace_back(ctx.fence().scope_key(),
                                                                    ctx.fence().token());
                                                ctx.fence().write(f.sink, "child", "child");
                                              }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"x", ChildPlacement::kAnyInstance, "child"},
                                       {"y", ChildPlacement::kAnyInstance, "child"}}}}});
  f.add_instance("A");
  f.add_instance("B");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(20 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  ASSERT_EQ(fences.size(), 2u);
  // Each child has a scope key and an epoch of its own: independent epochs, no false fencing.
  EXPECT_EQ(fences[0].second, 1u);
  EXPECT_EQ(fences[1].second, 1u);
  EXPECT_NE(fences[0].first, fences[1].first);
  EXPECT_NE(fences[0].first, "tenant-1:order-1");
  EXPECT_EQ(f.events.count(EventKind::kSinkRefused), 0u);
  EXPECT_EQ(f.sink.effects().size(), 2u);
}

TEST(RemoteWait, YieldsTheRootsLeaseOnlyWhileNoOtherStepOfTheTreeRuns) {
  LeasesFixture f;
  f.workflows.add(Workflow{"remote", {work("far", 40 * kSecond)}});
  f.workflows.add(Workflow{"sibling", {work("near", 20 * kSecond)}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"r", ChildPlacement::kAnyInstance, "remote"},
                                       {"s", ChildPlacement::kParentInstance, "sibling"}}},
                            work("after", kSecond)}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(10 * kSecond);
  // The sibling's step runs: the root's lease must not be yielded.
  EXPECT_EQ(f.events.count(EventKind::kStoreLeaseReleased), 0u);
  f.time.advance(15 * kSecond);
  // The sibling ended; the remote child still runs: now the wait may yield the root's lease.
  const std::optional<Lease> root = f.leases.read(kRoot);
  ASSERT_TRUE(root.has_value());
  EXPECT_TRUE(root->released);
  f.time.advance(60 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  // After the wait the root took its lease back with the next token and ran "after" under it.
  const RuntimeEvent* after = nullptr;
  for (const RuntimeEvent& e : f.events.events()) {
    if (e.kind == EventKind::kStepStarted && e.step == "after") after = &e;
  }
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->token, 2u);
}

TEST(Withdrawal, AfterTheTreeEndedRunsWithoutAFence) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("a", kSecond)}});
  Instance& a = f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  ASSERT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  bool refused = false;
  a.withdraw(kRoot, "a", [&](ExecutionContext& ctx) {
    EXPECT_EQ(ctx.tree_key(), kRoot);
    try {
      (void)ctx.fence().token();
    } catch (const ExecutionContextUnavailableError&) {
      refused = true;
    }
  });
  EXPECT_TRUE(refused);
  EXPECT_EQ(f.events.last(EventKind::kWithdrawal)->detail, "unfenced");
}

TEST(Withdrawal, InsideAPassHasItsStepsFence) {
  LeasesFixture f;
  f.workflows.add(Workflow{"w", {work("a", 10 * kSecond)}});
  Instance& a = f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(2 * kSecond);
  Token token = 0;
  a.withdraw(kRoot, "a", [&](ExecutionContext& ctx) {
    token = ctx.fence().token();
    EXPECT_EQ(ctx.path(), "a");
  });
  EXPECT_EQ(token, 1u);
  EXPECT_EQ(f.events.last(EventKind::kWithdrawal)->detail, "fenced");
}

// Two steps run at once (two ParentInstance branches): a withdrawal for one gets that step's
// frame, not the one started last.
TEST(Withdrawal, InsideAPassGetsItsOwnStepsFrame) {
  LeasesFixture f;
  f.workflows.add(Workflow{"slow", {work("s", 10 * kSecond)}});
  f.workflows.add(Workflow{"fast", {work("f", 10 * kSecond)}});
  f.workflows.add(Workflow{"w", {GroupItem{"g", {{"one", ChildPlacement::kParentInstance, "slow"},
                                                 {"two", ChildPlacement::kParentInstance, "fast"}}}}});
  Instance& a = f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(2 * kSecond);
  std::string first, second;
  a.withdraw(kRoot, join_path(join_path("g", "one"), "s"), [&](ExecutionContext& ctx) { first = ctx.path(); });
  a.withdraw(kRoot, join_path(join_path("g", "two"), "f"), [&](ExecutionContext& ctx) { second = ctx.path(); });
  EXPECT_EQ(first, join_path(join_path("g", "one"), "s"));
  EXPECT_EQ(second, join_path(join_path("g", "two"), "f"));
  EXPECT_EQ(f.events.last(EventKind::kWithdrawal)->detail, "fenced");
}

TEST(Frames, AncestorsFenceRefusesWithContextUnavailable) {
  LeasesFixture f;
  std::string outcome;
  f.workflows.add(Workflow{"level", {StepItem{"s", [&](ExecutionContext& ctx) {
                                                ctx.fence().assert_held();  // the step's own: fine
                                                try {
                                                  (void)ctx.parent().fence().token();
                                                  outcome = "ancestor's fence worked";
                                                } catch (
                                                    const ExecutionContextUnavailableError& e) {
                                                  outcome = std::string(e.code());
                                                }
                                              }}}});
  f.workflows.add(Workflow{"w", {GroupItem{"g", {{"t", ChildPlacement::kThisWorkflow, "level"}}}}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  EXPECT_EQ(outcome, "execution.context-unavailable");
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
}

TEST(Decision, FencedErrorInsideAnAggregateIsFoundBeforeTheAbortReason) {
  LeasesFixture f;
  f.workflows.add(Workflow{
      "w", {StepItem{"s", [&](ExecutionContext& ctx) {
                       ctx.env().sleep(
                           f.policy.ttl_ns);  // the lease expires locally: the signal is aborted
                       auto fenced = std::make_exception_ptr(
                           ExecutionFencedError(ctx.tree_key(), 1, 2, "tenant-1:order-1"));
                       throw AggregateError(
                           {std::make_exception_ptr(StepError("unrelated")),
                            std::make_exception_ptr(StepError("wrapped", fenced))});
                     }}}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(35 * kSecond);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->detail, "execution.lease-lost.fenced");
  EXPECT_EQ(f.events.last(EventKind::kErrorClassified, "A")->detail, "execution.lease-lost.fenced");
}

// Two parallel branches fail in one pass, the second with a refusal: the pass is decided fenced,
// whatever the first branch's own error. (Red team 35c-31, the join rethrowing the first branch's
// failure alone, still passes this: the second step's own decision loses the lease as fenced, and
// the pass's decision follows the lease. Left open in docs/mutants.md.)
TEST(Decision, ARefusalMetByTheSecondOfTwoFailingBranchesDecidesThePass) {
  LeasesFixture f;
  f.workflows.add(Workflow{"fails", {StepItem{"s", [](ExecutionContext&) {
                                                 throw StepError("the first branch's own");
                                               }}}});
  f.workflows.add(Workflow{"refused", {StepItem{"s", [](ExecutionContext& ctx) {
                                                   throw ExecutionFencedError(
                                                       ctx.tree_key(), 1, 2, "tenant-1:order-1");
                                                 }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"a", ChildPlacement::kParentInstance, "fails"},
                                       {"b", ChildPlacement::kParentInstance, "refused"}}}}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  const RuntimeEvent* decided = f.events.last(EventKind::kErrorClassified, "A");
  ASSERT_NE(decided, nullptr);
  EXPECT_EQ(decided->detail, "execution.lease-lost.fenced");
}

// Two parallel branches fail with errors of their own, no refusal, no loss, no cancel: the join
// throws both as one AggregateError, so the pass is decided execution.aggregate. Red team 35c-31's
// join rethrew the first branch's failure alone (the pass was decided by its code, and a refusal
// or cancel in a later branch was found only if the lease or the signal still told of it).
TEST(Decision, TwoBranchesFailingOnTheirOwnAreDecidedTogether) {
  LeasesFixture f;
  f.workflows.add(Workflow{"fails", {StepItem{"s", [](ExecutionContext&) {
                                                 throw StepError("a branch's own");
                                               }}}});
  f.workflows.add(Workflow{"w",
                           {GroupItem{"g",
                                      {{"a", ChildPlacement::kParentInstance, "fails"},
                                       {"b", ChildPlacement::kParentInstance, "fails"}}}}});
  f.add_instance("A");
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  const RuntimeEvent* decided = f.events.last(EventKind::kErrorClassified, "A");
  ASSERT_NE(decided, nullptr);
  EXPECT_EQ(decided->detail, "execution.aggregate");
}

// Issue 29, a smaller finding: a key whose epochs are spent (the store throws TokenOverflowError at
// its take) is skipped by the poll, as a refused take is. The old poll let the error end its fiber,
// and the instance never ran another tree.
TEST(Instance, AKeyWhoseEpochsAreSpentDoesNotStopThePoll) {
  class SpentKey final : public testing::LeasesRoute {
   public:
    SpentKey(ExecutionLeaseRepository& target, LeaseKey spent)
        : LeasesRoute(target), spent_(std::move(spent)) {}
    TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) override {
      if (key == spent_) throw TokenOverflowError("lease epoch would pass 2^53-1");
      return store_.take(key, holder, ttl_ns);
    }

   private:
    LeaseKey spent_;
  };
  LeasesFixture f;
  const LeaseKey spent{"tenant-1", "spent"};
  SpentKey route(f.leases, spent);
  f.workflows.add(Workflow{"w", {work("a", kSecond)}});
  f.add_instance("A", &route);
  f.queue.place(spent, "w", std::nullopt);  // first in the queue's order
  f.queue.place(kRoot, "w", std::nullopt);
  f.start_all();
  f.time.advance(5 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kRoot).tree_completed);
  // The poll goes on: a tree placed later runs too.
  const LeaseKey later{"tenant-1", "later"};
  f.queue.place(later, "w", std::nullopt);
  f.time.advance(5 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(later).tree_completed);
  EXPECT_TRUE(f.time.fiber_errors().empty());
}

}  // namespace
}  // namespace fencesim::runtime::instance_test
