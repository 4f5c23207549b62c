#include "runtime/testing/leases_fixture.h"

#include "runtime/check.h"

namespace fencesim::runtime::testing {

LeasesFixture::LeasesFixture(LeasePolicy lease_policy) : policy(lease_policy) {}

LeasesFixture::~LeasesFixture() {
  for (auto& instance : instances_) instance->stop();
  time.shutdown();
}

Instance& LeasesFixture::add_instance(const std::string& holder,
                                      ExecutionLeaseRepository* leases_route) {
  envs_.push_back(std::make_unique<ManualEnv>(time, envs_.size() + 1));
  InstanceOptions options;
  options.holder = holder;
  options.lease = policy;
  instances_.push_back(std::make_unique<Instance>(*envs_.back(),
                                                  leases_route ? *leases_route : leases, checkpoints, queue,
                                                  workflows, events, options));
  return *instances_.back();
}

ManualEnv& LeasesFixture::env_of(const std::string& holder) {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    if (instances_[i]->holder() == holder) return *envs_[i];
  }
  check(false, "env_of: a known holder");
  return store_env;
}

void LeasesFixture::start_all() {
  for (auto& instance : instances_) instance->start();
}

std::exception_ptr LeasesFixture::run_step(const LeaseKey& key, const StepBody& body,
                                           const std::string& holder) {
  auto lease = HeldLease::take(LeaseServices{store_env, leases, events, policy, holder}, key);
  check(lease != nullptr, "run_step: the key's lease is free");
  auto frame =
      std::make_shared<Frame>(Frame{FrameKind::kStep, key, "unit-step", lease, false, nullptr});
  bool done = false;
  std::exception_ptr failure;
  // The body runs on a fiber so that it may sleep; the test's fiber moves time until it ends.
  store_env.spawn("unit-step", [&] {
    try {
      ExecutionContext context(frame, store_env, lease->signal());
      body(context);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
    frame->ended = true;
    done = true;
  });
  time.settle();
  const Nanoseconds give_up_ns = time.now_ns() + 3600 * kSecond;
  while (!done) {
    check(time.now_ns() < give_up_ns, "run_step: the step ends within an hour");
    time.advance(100 * kMillisecond);
  }
  return failure;
}

}  // namespace fencesim::runtime::testing
