#include "runtime/testing/leases_fixture.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runtime/check.h"
#include "runtime/errors.h"
#include "runtime/tree_cancel.h"

namespace fencesim::runtime::testing {

StallPoints::StallPoints(Env& env, ExecutionLeaseRepository& store)
    : store_(store), changed_(env.make_notification()) {}

void StallPoints::stall(const std::string& point) {
  static const std::set<std::string> kPoints{"take:sent",     "take:replied", "renew:sent",
                                             "renew:replied", "release:sent", "release:replied",
                                             "read:sent",     "read:replied"};
  if (!kPoints.contains(point)) {
    throw std::invalid_argument(fmt::format("no stall point '{}' in a lease call", point));
  }
  stalled_.insert(point);
}

void StallPoints::resume(const std::string& point) {
  stalled_.erase(point);
  changed_->notify_all();
}

int StallPoints::waiting(const std::string& point) const {
  const auto it = waiting_.find(point);
  return it == waiting_.end() ? 0 : it->second;
}

void StallPoints::pass(const std::string& point) {
  if (!stalled_.contains(point)) return;
  ++waiting_[point];
  while (stalled_.contains(point)) changed_->wait("a resume of a lease call's stall point");
  --waiting_[point];
}

TakeResult StallPoints::take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) {
  pass("take:sent");
  const TakeResult result = store_.take(key, holder, ttl_ns);
  pass("take:replied");
  return result;
}

RenewResult StallPoints::renew(const LeaseKey& key, const HolderId& holder, Token token,
                               Nanoseconds ttl_ns) {
  pass("renew:sent");
  const RenewResult result = store_.renew(key, holder, token, ttl_ns);
  pass("renew:replied");
  return result;
}

ReleaseStatus StallPoints::release(const LeaseKey& key, const HolderId& holder, Token token) {
  pass("release:sent");
  const ReleaseStatus status = store_.release(key, holder, token);
  pass("release:replied");
  return status;
}

std::optional<Lease> StallPoints::read(const LeaseKey& key) {
  pass("read:sent");
  const std::optional<Lease> lease = store_.read(key);
  pass("read:replied");
  return lease;
}

LeasesFixture::LeasesFixture(LeasePolicy lease_policy) : policy(lease_policy) {}

LeasesFixture::~LeasesFixture() {
  for (auto& instance : instances_) instance->stop();
  time.shutdown();
}

LeasesFixture::Process* LeasesFixture::find(const std::string& holder) {
  for (Process& process : processes_) {
    if (process.holder == holder) return &process;
  }
  return nullptr;
}

LeasesFixture::Process& LeasesFixture::process(const std::string& holder,
                                               ExecutionLeaseRepository& route) {
  check(find(holder) == nullptr, "a holder names one process of the fixture");
  auto env = std::make_unique<ManualEnv>(time, processes_.size() + 1);
  auto calls = std::make_unique<StallPoints>(*env, route);
  processes_.push_back(Process{holder, std::move(env), std::move(calls)});
  return processes_.back();
}

Instance& LeasesFixture::add_instance(const std::string& holder,
                                      ExecutionLeaseRepository* leases_route) {
  Process& own = process(holder, leases_route ? *leases_route : leases);
  InstanceOptions options;
  options.holder = holder;
  options.lease = policy;
  instances_.push_back(std::make_unique<Instance>(*own.env, *own.lease_calls, checkpoints, queue,
                                                  workflows, events, options));
  return *instances_.back();
}

ManualEnv& LeasesFixture::env_of(const std::string& holder) {
  Process* own = find(holder);
  check(own != nullptr, "env_of: a known holder");
  return *own->env;
}

StallPoints& LeasesFixture::lease_calls(const std::string& holder) {
  Process* own = find(holder);
  // A unit runner's holder is made at its first use, so that a test can stall its calls before
  // its first run.
  if (own == nullptr) own = &process(holder, leases);
  return *own->lease_calls;
}

void LeasesFixture::start_all() {
  for (auto& instance : instances_) instance->start();
}

namespace {

// What the unit runner's step ends with, in the order an instance's pass decides it
// (runtime/tree_runner.cpp, TreeRunner::run_step): a body that returned after its lease was lost
// did not succeed; a failure is decided by decide_failure (a refusal anywhere in it, or in the
// signal's reason, first), after a belief that ran out unnoticed was found; a refusal stops the
// holder of its token.
std::exception_ptr step_outcome(std::exception_ptr failure, HeldLease& lease) {
  if (!failure && !lease.held_now()) failure = lease.lost_error();
  if (!failure) return nullptr;
  (void)lease.held_now();
  const FailureDecision decision = decide_failure(failure, lease.signal().reason());
  if (decision.stop_token && decision.stop_key == lease.key() &&
      *decision.stop_token == lease.token()) {
    lease.lose("fenced", decision.error);
  }
  return decision.error;
}

}  // namespace

std::exception_ptr LeasesFixture::run_step(const LeaseKey& key, const StepBody& body,
                                           const std::string& holder) {
  Process* own = find(holder);
  if (own == nullptr) own = &process(holder, leases);
  ManualEnv& env = *own->env;
  LeaseServices services{env, *own->lease_calls, events, policy, holder};
  bool done = false;
  std::exception_ptr outcome;
  // Everything runs on a fiber of the holder's process, as an instance's pass does, so that the
  // body may sleep and a lease call may stall; the test's fiber moves time until it ends.
  env.spawn("unit-step", [&] {
    std::shared_ptr<HeldLease> lease;
    std::shared_ptr<Frame> frame;
    std::shared_ptr<TreeCancel> cancel;
    std::exception_ptr failure;
    try {
      lease = HeldLease::take(services, key);
      check(lease != nullptr, "run_step: the key's lease is free");
      lease->start_timers();
      cancel = std::make_shared<TreeCancel>(checkpoints, key);
      cancel->set_lease(lease);
      TreeCancel::start_watcher(cancel);
      // The step start's cancel check, as a pass's: a recorded cancel refuses the step.
      try {
        cancel->read("step-start");
      } catch (const StoreUnavailableError&) {
        // As a pass's step start: an unreachable store cannot say the tree was cancelled.
      }
      cancel->throw_if_seen();
      lease->assert_held();
      frame = std::make_shared<Frame>(
          Frame{FrameKind::kStep, key, "unit-step", lease, false, nullptr, cancel});
      ExecutionContext context(frame, env, lease->signal());
      body(context);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
    if (frame) frame->ended = true;
    if (cancel) cancel->end_pass();
    outcome = lease ? step_outcome(failure, *lease) : failure;
    // The step's pass is over: its lease is given back, as an instance's is at a pass's end.
    if (lease) lease->release();
    done = true;
  });
  time.settle();
  const Nanoseconds give_up_ns = time.now_ns() + 3600 * kSecond;
  while (!done) {
    check(time.now_ns() < give_up_ns, "run_step: the step ends within an hour");
    time.advance(100 * kMillisecond);
  }
  return outcome;
}

}  // namespace fencesim::runtime::testing
