// MemoryLeaseRepository: the ExecutionLeaseRepository contract, and what only the in-memory store
// promises (the store-side events it reports).
#include <gtest/gtest.h>

#include <memory>

#include "runtime/memory_lease_repository.h"
#include "runtime/observer.h"
#include "runtime/testing/recording_observer.h"
#include "runtime/tests/lease_repository_contract.h"

namespace fencesim::runtime::lease_repository_test {
namespace {

using contract::ContractClock;
using testing::RecordingObserver;

NullObserver null_observer;

FENCESIM_INSTANTIATE_LEASE_REPOSITORY_CONTRACT(Memory, [](Clock& store_clock) {
  return std::unique_ptr<ExecutionLeaseRepository>(
      std::make_unique<MemoryLeaseRepository>(store_clock, null_observer));
});

constexpr Nanoseconds kTtl = 10 * kSecond;
const LeaseKey kKey{"tenant-1", "exec-1"};

TEST(MemoryLeaseRepository, GrantsAreReportedWithTheirEpochAndExpiry) {
  ContractClock clock;
  RecordingObserver observer;
  MemoryLeaseRepository repo(clock, observer);

  const TakeResult taken = repo.take(kKey, "holder-a", kTtl);
  ASSERT_EQ(taken.status, TakeStatus::kTaken);
  ASSERT_EQ(observer.count(EventKind::kStoreLeaseGranted), 1u);
  const RuntimeEvent* granted = observer.last(EventKind::kStoreLeaseGranted);
  ASSERT_NE(granted, nullptr);
  EXPECT_EQ(granted->key, kKey);
  EXPECT_EQ(granted->token, Token{1});
  EXPECT_EQ(granted->value, taken.lease.expires_at_ns);
  EXPECT_EQ(granted->value, clock.wall_ns() + kTtl);

  // A refused take grants nothing.
  EXPECT_EQ(repo.take(kKey, "holder-b", kTtl).status, TakeStatus::kHeld);
  EXPECT_EQ(observer.count(EventKind::kStoreLeaseGranted), 1u);

  clock.advance(kTtl);
  ASSERT_EQ(repo.take(kKey, "holder-b", kTtl).status, TakeStatus::kTaken);
  ASSERT_EQ(observer.count(EventKind::kStoreLeaseGranted), 2u);
  EXPECT_EQ(observer.last(EventKind::kStoreLeaseGranted)->token, Token{2});
  EXPECT_EQ(observer.last(EventKind::kStoreLeaseGranted)->value, clock.wall_ns() + kTtl);
}

TEST(MemoryLeaseRepository, RefusedRenewalsAreReportedWithWhy) {
  ContractClock clock;
  RecordingObserver observer;
  MemoryLeaseRepository repo(clock, observer);
  const Lease held = repo.take(kKey, "holder-a", kTtl).lease;

  ASSERT_EQ(repo.renew(kKey, "holder-a", held.token + 1, kTtl).status, RenewStatus::kStale);
  ASSERT_EQ(observer.count(EventKind::kStoreRenewRefused), 1u);
  const RuntimeEvent* stale = observer.last(EventKind::kStoreRenewRefused);
  EXPECT_EQ(stale->key, kKey);
  EXPECT_EQ(stale->token, held.token + 1);  // the token that was refused
  EXPECT_EQ(stale->detail, "stale");

  ASSERT_EQ(repo.renew(kKey, "holder-b", held.token, kTtl).status, RenewStatus::kNotHolder);
  EXPECT_EQ(observer.last(EventKind::kStoreRenewRefused)->detail, "not-holder");

  clock.advance(kTtl);
  ASSERT_EQ(repo.renew(kKey, "holder-a", held.token, kTtl).status, RenewStatus::kExpired);
  EXPECT_EQ(observer.last(EventKind::kStoreRenewRefused)->detail, "expired");
  EXPECT_EQ(observer.count(EventKind::kStoreRenewRefused), 3u);
  EXPECT_EQ(observer.count(EventKind::kStoreLeaseRenewed), 0u);
}

TEST(MemoryLeaseRepository, RenewalsAndReleasesAreReported) {
  ContractClock clock;
  RecordingObserver observer;
  MemoryLeaseRepository repo(clock, observer);
  const Lease held = repo.take(kKey, "holder-a", kTtl).lease;

  clock.advance(kSecond);
  ASSERT_EQ(repo.renew(kKey, "holder-a", held.token, kTtl).status, RenewStatus::kRenewed);
  ASSERT_EQ(observer.count(EventKind::kStoreLeaseRenewed), 1u);
  EXPECT_EQ(observer.last(EventKind::kStoreLeaseRenewed)->value, clock.wall_ns() + kTtl);
  EXPECT_EQ(observer.last(EventKind::kStoreLeaseRenewed)->token, held.token);

  ASSERT_EQ(repo.release(kKey, "holder-a", held.token), ReleaseStatus::kReleased);
  EXPECT_EQ(observer.count(EventKind::kStoreLeaseReleased), 1u);
  EXPECT_EQ(observer.count(EventKind::kStoreRenewRefused), 0u);
}

// 2^53 takes are out of reach: restore() starts the key where a persisted store would have left it.
TEST(MemoryLeaseRepository, TokenPastTwoToTheFiftyThreeIsAnErrorNotAWrap) {
  ContractClock clock;
  RecordingObserver observer;
  MemoryLeaseRepository repo(clock, observer);

  const Lease almost{kKey, "holder-a", kTokenMax - 1, clock.wall_ns(), false};  // expired now
  repo.restore(almost);
  ASSERT_EQ(repo.read(kKey), almost);

  // The last safe epoch is still granted.
  const TakeResult last = repo.take(kKey, "holder-b", kTtl);
  ASSERT_EQ(last.status, TakeStatus::kTaken);
  EXPECT_EQ(last.lease.token, kTokenMax);
  EXPECT_EQ(kTokenMax, (Token{1} << 53) - 1);

  // The next one is an error, not 2^53 and not a wrap to 0 or 1; the store is left as it was.
  clock.advance(kTtl);
  observer.clear();
  EXPECT_THROW(repo.take(kKey, "holder-c", kTtl), TokenOverflowError);
  EXPECT_EQ(repo.read(kKey), last.lease);
  EXPECT_EQ(observer.count(EventKind::kStoreLeaseGranted), 0u);
  // And it stays an error: nothing was consumed by the failed take.
  EXPECT_THROW(repo.take(kKey, "holder-a", kTtl), TokenOverflowError);

  // Other keys are unaffected.
  EXPECT_EQ(repo.take(LeaseKey{"tenant-1", "exec-2"}, "holder-c", kTtl).lease.token, Token{1});
}

}  // namespace
}  // namespace fencesim::runtime::lease_repository_test
