// Deviations from ADR-0023 found by review (issue 9 section 1), one test each: every test here
// fails on the runtime's old behaviour, kept as a mutant in mutants/.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/errors.h"
#include "runtime/execution_context.h"
#include "runtime/scope_key.h"
#include "runtime/testing/leases_fixture.h"

namespace fencesim::runtime {
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
class RenewalsDown final : public ExecutionLeaseRepository {
 public:
  explicit RenewalsDown(ExecutionLeaseRepository& target) : target_(target) {}
  TakeResult take(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl_ns) override {
    return target_.take(key, holder, ttl_ns);
  }
  RenewResult renew(const LeaseKey& key, const HolderId& holder, Token token,
                    Nanoseconds ttl_ns) override {
    if (down) throw StoreUnavailableError("renew: no reply");
    return target_.renew(key, holder, token, ttl_ns);
  }
  ReleaseStatus release(const LeaseKey& key, const HolderId& holder, Token token) override {
    return target_.release(key, holder, token);
  }
  std::optional<Lease> read(const LeaseKey& key) override { return target_.read(key); }
  bool down = false;

 private:
  ExecutionLeaseRepository& target_;
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
  EXPECT_THROW(fence.confirm_now(), ExecutionLeaseLostError);
  leases.down = false;
  EXPECT_GT(fence.confirm_now(), f.time.now_ns());  // granted again: it returns
}

}  // namespace
}  // namespace fencesim::runtime
