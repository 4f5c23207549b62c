// Issue 29 items 7 and 8: the unit runner's fence is the runtime's. One step body runs under the
// leases fixture's run_step and as the only step of a tree on an instance, and both runs must end
// alike: when the sink replies late (the lease renews on its timer meanwhile), and when the
// holder's renewals stall on their way to the store (a stall point of the fixture), where the
// expiry watchdog ends the call at the lease's local expiry. The old unit runner had no renewal
// timer and no watchdog: its write returned at the sink's reply, 40 s, with the lease lost.
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/testing/leases_fixture.h"

namespace fencesim::runtime::unit_runner_test {
namespace {

using testing::LeasesFixture;

const LeaseKey kKey{"tenant-1", "unit-1"};

// A sink reached over a link slower than the lease: it replies `delay` after the call.
class SlowSink final : public Sink {
 public:
  SlowSink(Env& env, Sink& target, Nanoseconds delay) : env_(env), target_(target), delay_(delay) {}
  const std::string& name() const override { return target_.name(); }
  SinkReply write(const SinkWrite& write) override {
    env_.sleep(delay_);
    return target_.write(write);
  }

 private:
  Env& env_;
  Sink& target_;
  Nanoseconds delay_;
};

// What one run of the step showed: when its write call returned (true time since the step began)
// and how the step ended.
struct Seen {
  Nanoseconds call_ns = -1;
  std::string ended;
  std::size_t applied = 0;

  friend bool operator==(const Seen&, const Seen&) = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& seen) {
  return out << "call returned at " << seen.call_ns / kMillisecond << " ms, step ended '"
             << seen.ended << "', " << seen.applied << " effect(s) applied";
}

// The step: one fenced write to a sink that replies after 40 s (more than the lease's 30 s).
StepBody slow_write(LeasesFixture& f, SlowSink& sink, Nanoseconds& began, Seen& seen) {
  return [&f, &sink, &began, &seen](ExecutionContext& ctx) {
    began = f.time.now_ns();
    try {
      ctx.fence().write(sink, "charge", "42");
    } catch (const std::exception&) {
      seen.call_ns = f.time.now_ns() - began;
      throw;
    }
    seen.call_ns = f.time.now_ns() - began;
  };
}

// `stall_renewals`: the holder's renewals stall on their way to the store from the start.
Seen under_unit_runner(bool stall_renewals) {
  LeasesFixture f;
  SlowSink sink(f.store_env, f.sink, 40 * kSecond);
  Seen seen;
  Nanoseconds began = 0;
  if (stall_renewals) f.lease_calls("unit-runner").stall("renew:sent");
  const std::exception_ptr outcome = f.run_step(kKey, slow_write(f, sink, began, seen));
  seen.ended = outcome ? error_code(outcome) : "ok";
  f.time.advance(20 * kSecond);  // the write left in flight lands (or not) meanwhile
  seen.applied = f.sink.effects().size();
  return seen;
}

Seen under_instance(bool stall_renewals) {
  LeasesFixture f;
  SlowSink sink(f.store_env, f.sink, 40 * kSecond);
  Seen seen;
  Nanoseconds began = 0;
  f.workflows.add(Workflow{"w", {StepItem{"unit-step", slow_write(f, sink, began, seen)}}});
  f.add_instance("A");
  if (stall_renewals) f.lease_calls("A").stall("renew:sent");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(60 * kSecond);
  const RuntimeEvent* ended = f.events.last(EventKind::kStepEnded, "A");
  seen.ended = ended == nullptr ? "never" : ended->detail;
  // After a loss the instance runs the tree again (a second call that has not returned by now,
  // as its renewals stay stalled): what is compared is the first run's.
  seen.applied = f.sink.effects().size();
  return seen;
}

TEST(UnitRunner, AWriteThatOutlastsTheTtlEndsAsOnAnInstance) {
  const Seen instance = under_instance(false);
  // The lease renews on its timer while the sink takes 40 s: the write succeeds at its reply.
  EXPECT_EQ(instance.call_ns, 40 * kSecond) << instance;
  EXPECT_EQ(instance.ended, "ok") << instance;
  EXPECT_EQ(under_unit_runner(false), instance);
}

TEST(UnitRunner, RenewalsStalledOnTheirWayEndTheWriteAtTheLocalExpiryAsOnAnInstance) {
  const Seen instance = under_instance(true);
  // The renewals never reach the store: the watchdog ends the lease at its belief's end (30 s
  // less the drift margin, from the take's send time), and the write with it.
  LeasePolicy policy;
  EXPECT_EQ(instance.call_ns, policy.ttl_ns - policy.drift_margin_ns()) << instance;
  EXPECT_EQ(instance.ended, std::string(ExecutionLeaseLostError::kCode)) << instance;
  EXPECT_EQ(under_unit_runner(true), instance);
}

TEST(UnitRunner, ASecondRunOnTheSameKeyTakesTheNextTokenAtOnce) {
  // The first run's lease is given back when its step ends, as a pass's is.
  LeasesFixture f;
  Token first = 0, second = 0;
  EXPECT_FALSE(f.run_step(kKey, [&](ExecutionContext& ctx) { first = ctx.fence().token(); }));
  EXPECT_FALSE(f.run_step(kKey, [&](ExecutionContext& ctx) { second = ctx.fence().token(); }));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 2u);
}

TEST(UnitRunner, ACancelRecordedBeforeTheStepRefusesItAndOneDuringItAbortsItsSignal) {
  LeasesFixture f;
  f.checkpoints.request_cancel(kKey);
  bool ran = false;
  const std::exception_ptr refused = f.run_step(kKey, [&](ExecutionContext&) { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_EQ(error_code(refused), std::string(ExecutionCancelledError::kCode));

  const LeaseKey other{"tenant-1", "unit-2"};
  bool aborted = false;
  const std::exception_ptr seen = f.run_step(other, [&](ExecutionContext& ctx) {
    f.checkpoints.request_cancel(other);
    // The watcher reads the store once every renewal interval.
    ctx.env().sleep(f.policy.renew_interval_ns + kSecond);
    aborted = ctx.signal().aborted();
    ctx.signal().throw_if_aborted();
  });
  EXPECT_TRUE(aborted);
  EXPECT_EQ(error_code(seen), std::string(ExecutionCancelledError::kCode));
}

TEST(StallPoints, AStalledRenewalWaitsUntilResumedAndAMisspeltPointIsRefused) {
  LeasesFixture f;
  f.add_instance("A");
  testing::StallPoints& calls = f.lease_calls("A");
  EXPECT_THROW(calls.stall("renew:send"), std::invalid_argument);
  f.workflows.add(
      Workflow{"w", {StepItem{"s", [](ExecutionContext& ctx) { ctx.env().sleep(15 * kSecond); }}}});
  calls.stall("renew:replied");
  f.queue.place(kKey, "w", std::nullopt);
  f.start_all();
  f.time.advance(12 * kSecond);
  // The first renewal (at 10 s after the take) reached the store; its reply waits.
  EXPECT_EQ(calls.waiting("renew:replied"), 1);
  EXPECT_EQ(f.events.count(EventKind::kStoreLeaseRenewed), 1u);
  EXPECT_EQ(f.events.count(EventKind::kLeaseRenewed), 0u);
  calls.resume("renew:replied");
  f.time.settle();
  EXPECT_EQ(calls.waiting("renew:replied"), 0);
  EXPECT_EQ(f.events.count(EventKind::kLeaseRenewed), 1u);
  f.time.advance(10 * kSecond);
  EXPECT_TRUE(f.checkpoints.load(kKey).tree_completed);
}

}  // namespace
}  // namespace fencesim::runtime::unit_runner_test
