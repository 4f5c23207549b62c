#pragma once
// The contract of ExecutionLeaseRepository (runtime/lease_repository.h), as a value-parameterized
// GoogleTest suite that every implementation passes: in memory, SQLite, PostgreSQL.
//
// Use: in exactly ONE translation unit of a test binary (the TEST_P cases below are definitions),
//
//   #include "runtime/tests/lease_repository_contract.h"
//   FENCESIM_INSTANTIATE_LEASE_REPOSITORY_CONTRACT(Memory, [](Clock& store_clock) {
//     return std::make_unique<MyLeaseRepository>(store_clock, ...);
//   });
//
// Each case gets a fresh repository over a fresh ContractClock, which the case controls: the
// store's wall clock (by which expiry is judged) and its monotonic clock move independently. A
// factory whose store keeps state outside the process (a database) must hand out an empty table; a
// factory with no store to run on calls GTEST_SKIP() (from a helper) and returns nullptr.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/env.h"
#include "runtime/lease_repository.h"
#include "runtime/testing/stepped_clock.h"

namespace fencesim::runtime::contract {

using ContractClock = testing::SteppedClock;

using LeaseRepositoryFactory =
    std::function<std::unique_ptr<ExecutionLeaseRepository>(Clock& store_clock)>;

struct LeaseRepositoryImpl {
  std::string name;  // a GoogleTest identifier: letters, digits, underscores
  LeaseRepositoryFactory make;

  friend void PrintTo(const LeaseRepositoryImpl& impl, std::ostream* os) { *os << impl.name; }
};

class LeaseRepositoryContract : public ::testing::TestWithParam<LeaseRepositoryImpl> {
 protected:
  static constexpr Nanoseconds kTtl = 10 * kSecond;

  void SetUp() override {
    repo_ = GetParam().make(clock_);
    if (IsSkipped()) return;  // the factory found no store to run on and said why (GTEST_SKIP)
    ASSERT_NE(repo_, nullptr);
  }

  ExecutionLeaseRepository& repo() { return *repo_; }
  Nanoseconds now() { return clock_.wall_ns(); }

  // Takes `key` and requires that the take succeeded.
  Lease take_ok(const LeaseKey& key, const HolderId& holder, Nanoseconds ttl = kTtl) {
    const TakeResult result = repo().take(key, holder, ttl);
    EXPECT_EQ(result.status, TakeStatus::kTaken)
        << "take of " << to_string(key) << " by " << holder;
    return result.lease;
  }

  ContractClock clock_;
  std::unique_ptr<ExecutionLeaseRepository> repo_;
  const LeaseKey key_{"tenant-1", "exec-1"};
  const LeaseKey other_key_{"tenant-1", "exec-2"};
};

// --- Epochs -----------------------------------------------------------------------------------

TEST_P(LeaseRepositoryContract, FirstHolderOfAKeyGetsTokenOne) {
  const Nanoseconds t0 = now();
  const TakeResult result = repo().take(key_, "holder-a", kTtl);
  ASSERT_EQ(result.status, TakeStatus::kTaken);
  EXPECT_EQ(result.lease.token, Token{1});
  EXPECT_EQ(result.lease.key, key_);
  EXPECT_EQ(result.lease.holder, "holder-a");
  EXPECT_EQ(result.lease.expires_at_ns, t0 + kTtl);
  EXPECT_FALSE(result.lease.released);
}

TEST_P(LeaseRepositoryContract, EveryTakeAddsOneToTheKeysEpoch) {
  EXPECT_EQ(take_ok(key_, "holder-a").token, Token{1});
  clock_.advance(kTtl);  // expired: now == expires_at
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{2});
  ASSERT_EQ(repo().release(key_, "holder-b", 2), ReleaseStatus::kReleased);
  // The same holder again: a new take is a new epoch, never a reuse of its old token.
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{3});
}

TEST_P(LeaseRepositoryContract, EpochsAreCountedPerKeyNotByAStoreRevision) {
  const std::vector<LeaseKey> keys = {{"t", "x"}, {"t", "y"}, {"u", "x"}};
  for (Token epoch = 1; epoch <= 3; ++epoch) {
    for (const LeaseKey& key : keys) {
      EXPECT_EQ(take_ok(key, "holder-" + std::to_string(epoch)).token, epoch)
          << "key " << to_string(key);
    }
    clock_.advance(kTtl);
  }
}

TEST_P(LeaseRepositoryContract, ALiveLeaseRefusesATakeEvenByItsHolder) {
  const Lease held = take_ok(key_, "holder-a");
  clock_.advance(kTtl - 1);  // one nanosecond of life left

  const TakeResult by_holder = repo().take(key_, "holder-a", kTtl);
  EXPECT_EQ(by_holder.status, TakeStatus::kHeld);
  EXPECT_EQ(by_holder.lease, held);

  const TakeResult by_other = repo().take(key_, "holder-b", kTtl);
  EXPECT_EQ(by_other.status, TakeStatus::kHeld);
  EXPECT_EQ(by_other.lease, held);

  EXPECT_EQ(repo().read(key_), held);  // refused takes neither extend nor consume an epoch
  clock_.advance(1);
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{2});
}

// --- Time -------------------------------------------------------------------------------------

TEST_P(LeaseRepositoryContract, ExpiryIsJudgedByTheStoresClock) {
  const Nanoseconds t0 = now();
  const Lease held = take_ok(key_, "holder-a");
  ASSERT_EQ(held.expires_at_ns, t0 + kTtl);

  // A caller whose own clock is an hour ahead still meets a live lease: the API takes no caller
  // time, and the store's monotonic clock is not what expiry is judged by either.
  ContractClock callers_clock;
  callers_clock.advance(3600 * kSecond);
  clock_.advance_monotonic_only(3600 * kSecond);
  EXPECT_EQ(repo().take(key_, "holder-b", kTtl).status, TakeStatus::kHeld);

  // The store's wall clock steps to one nanosecond short of expiry: still live.
  clock_.step_wall_clock(kTtl - 1);
  EXPECT_EQ(repo().take(key_, "holder-b", kTtl).status, TakeStatus::kHeld);

  // One more nanosecond of the store's wall clock: expired, and a take succeeds.
  clock_.step_wall_clock(1);
  const Lease taken = take_ok(key_, "holder-b");
  EXPECT_EQ(taken.token, Token{2});
  EXPECT_EQ(taken.expires_at_ns, now() + kTtl);

  // A backward step of the store's wall clock keeps the new lease live past its first expiry.
  clock_.step_wall_clock(-5 * kSecond);
  clock_.advance(12 * kSecond);  // wall: 7 s after the take, monotonic: 12 s
  EXPECT_EQ(repo().take(key_, "holder-a", kTtl).status, TakeStatus::kHeld);
}

TEST_P(LeaseRepositoryContract, RenewExtendsFromTheStoresNow) {
  const Lease held = take_ok(key_, "holder-a");
  clock_.advance(4 * kSecond);

  const RenewResult renewed = repo().renew(key_, "holder-a", held.token, kTtl);
  ASSERT_EQ(renewed.status, RenewStatus::kRenewed);
  ASSERT_TRUE(renewed.lease.has_value());
  EXPECT_EQ(renewed.lease->token, held.token);  // a renewal keeps the epoch
  EXPECT_EQ(renewed.lease->holder, "holder-a");
  EXPECT_EQ(renewed.lease->expires_at_ns, now() + kTtl);
  EXPECT_EQ(repo().read(key_), renewed.lease);

  // From the store's now, not from the old expiry and not by the store's monotonic clock.
  clock_.advance_monotonic_only(100 * kSecond);
  clock_.step_wall_clock(3 * kSecond);
  const RenewResult again = repo().renew(key_, "holder-a", held.token, 2 * kTtl);
  ASSERT_EQ(again.status, RenewStatus::kRenewed);
  EXPECT_EQ(again.lease->expires_at_ns, now() + 2 * kTtl);

  // The renewed lease lives until its new expiry, not its first one.
  clock_.advance(2 * kTtl - 1);
  EXPECT_EQ(repo().take(key_, "holder-b", kTtl).status, TakeStatus::kHeld);
  clock_.advance(1);
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{2});
}

// --- Refused renewals -------------------------------------------------------------------------

TEST_P(LeaseRepositoryContract, RenewWithAStaleTokenIsRefusedAndExtendsNothing) {
  take_ok(key_, "holder-a");
  clock_.advance(kTtl);
  const Lease current = take_ok(key_, "holder-a");  // the same holder, a new epoch: 2
  ASSERT_EQ(current.token, Token{2});
  clock_.advance(kSecond);

  for (const Token token : {Token{1}, Token{3}, kTokenNone}) {
    const RenewResult result = repo().renew(key_, "holder-a", token, 10 * kTtl);
    EXPECT_EQ(result.status, RenewStatus::kStale) << "token " << token;
    EXPECT_EQ(repo().read(key_), current) << "token " << token;
  }
  clock_.advance(kTtl - kSecond);  // the current lease's own expiry still holds
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{3});
}

TEST_P(LeaseRepositoryContract, RenewByAnotherHolderIsRefused) {
  const Lease held = take_ok(key_, "holder-a");
  clock_.advance(kSecond);
  const RenewResult result = repo().renew(key_, "holder-b", held.token, 10 * kTtl);
  EXPECT_EQ(result.status, RenewStatus::kNotHolder);
  EXPECT_EQ(repo().read(key_), held);
  // Nor did it steal the lease: the holder still renews.
  EXPECT_EQ(repo().renew(key_, "holder-a", held.token, kTtl).status, RenewStatus::kRenewed);
}

TEST_P(LeaseRepositoryContract, RenewAfterExpiryIsRefusedEvenIfNobodyTookIt) {
  const Lease held = take_ok(key_, "holder-a");
  clock_.advance(kTtl);  // exactly at expiry: no longer live
  const RenewResult result = repo().renew(key_, "holder-a", held.token, kTtl);
  EXPECT_EQ(result.status, RenewStatus::kExpired);
  EXPECT_EQ(repo().read(key_), held);  // not resurrected
  clock_.advance(kSecond);
  EXPECT_EQ(repo().renew(key_, "holder-a", held.token, kTtl).status, RenewStatus::kExpired);
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{2});
}

TEST_P(LeaseRepositoryContract, RenewAfterReleaseIsRefused) {
  const Lease held = take_ok(key_, "holder-a");
  ASSERT_EQ(repo().release(key_, "holder-a", held.token), ReleaseStatus::kReleased);
  const std::optional<Lease> released = repo().read(key_);
  const RenewResult result = repo().renew(key_, "holder-a", held.token, kTtl);
  EXPECT_EQ(result.status, RenewStatus::kReleased);
  EXPECT_EQ(repo().read(key_), released);
  ASSERT_TRUE(released.has_value());
  EXPECT_TRUE(released->released);
  EXPECT_FALSE(released->live_at(now()));
}

// --- Release ----------------------------------------------------------------------------------

TEST_P(LeaseRepositoryContract, ReleaseEndsTheLeaseAtOnce) {
  const Lease held = take_ok(key_, "holder-a");
  clock_.advance(kSecond);
  EXPECT_EQ(repo().release(key_, "holder-a", held.token), ReleaseStatus::kReleased);

  const std::optional<Lease> after = repo().read(key_);
  ASSERT_TRUE(after.has_value());
  EXPECT_TRUE(after->released);
  EXPECT_EQ(after->token, held.token);
  EXPECT_FALSE(after->live_at(now()));
  // Releasing twice is refused.
  EXPECT_EQ(repo().release(key_, "holder-a", held.token), ReleaseStatus::kRefused);
  // No time passes, and another holder takes the next epoch.
  const Lease next = take_ok(key_, "holder-b");
  EXPECT_EQ(next.token, Token{2});
  EXPECT_EQ(next.expires_at_ns, now() + kTtl);
}

TEST_P(LeaseRepositoryContract, ReleaseByAStaleTokenChangesNothing) {
  const Lease first = take_ok(key_, "holder-a");
  clock_.advance(kTtl);
  const Lease current = take_ok(key_, "holder-b");
  ASSERT_EQ(current.token, Token{2});

  EXPECT_EQ(repo().release(key_, "holder-a", first.token), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().release(key_, "holder-b", first.token), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().release(key_, "holder-b", current.token + 1), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().release(key_, "holder-a", current.token), ReleaseStatus::kRefused);  // not its
  EXPECT_EQ(repo().read(key_), current);
  EXPECT_EQ(repo().take(key_, "holder-c", kTtl).status, TakeStatus::kHeld);

  // An expired lease cannot be released either: there is nothing left to end.
  clock_.advance(kTtl);
  EXPECT_EQ(repo().release(key_, "holder-b", current.token), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().read(key_), current);
}

// --- Read and keys ----------------------------------------------------------------------------

TEST_P(LeaseRepositoryContract, ReadReturnsTheCurrentLease) {
  EXPECT_EQ(repo().read(key_), std::nullopt);

  const Lease taken = take_ok(key_, "holder-a");
  EXPECT_EQ(repo().read(key_), taken);
  EXPECT_EQ(repo().read(other_key_), std::nullopt);

  clock_.advance(kSecond);
  const RenewResult renewed = repo().renew(key_, "holder-a", taken.token, kTtl);
  ASSERT_EQ(renewed.status, RenewStatus::kRenewed);
  EXPECT_EQ(repo().read(key_), renewed.lease);

  // An expired lease is still read back, as it was: read returns live or not.
  clock_.advance(kTtl);
  const std::optional<Lease> expired = repo().read(key_);
  EXPECT_EQ(expired, renewed.lease);
  ASSERT_TRUE(expired.has_value());
  EXPECT_FALSE(expired->live_at(now()));

  const Lease next = take_ok(key_, "holder-b");
  EXPECT_EQ(repo().read(key_), next);
  ASSERT_EQ(repo().release(key_, "holder-b", next.token), ReleaseStatus::kReleased);
  const std::optional<Lease> released = repo().read(key_);
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(released->key, key_);
  EXPECT_EQ(released->holder, "holder-b");
  EXPECT_EQ(released->token, next.token);
  EXPECT_TRUE(released->released);
}

TEST_P(LeaseRepositoryContract, UnknownKeyCannotBeRenewedOrReleased) {
  take_ok(other_key_, "holder-a");  // a neighbour's lease lends nothing to the unknown key

  const RenewResult renewed = repo().renew(key_, "holder-a", 1, kTtl);
  EXPECT_EQ(renewed.status, RenewStatus::kUnknownKey);
  EXPECT_EQ(renewed.lease, std::nullopt);
  EXPECT_EQ(repo().release(key_, "holder-a", 1), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().release(key_, "holder-a", kTokenNone), ReleaseStatus::kRefused);
  EXPECT_EQ(repo().read(key_), std::nullopt);
  // Refused calls created no epoch.
  EXPECT_EQ(take_ok(key_, "holder-b").token, Token{1});
}

TEST_P(LeaseRepositoryContract, KeysWithSeparatorsAndNonAsciiAreDistinct) {
  using namespace std::string_literals;
  const std::vector<LeaseKey> keys = {
      {"a:b", "c"},
      {"a", "b:c"},
      {"a", "b"},
      {"", ""},
      {"", "x"},
      {"x", ""},
      {"a\0b"s, "c"},
      {"a", "\0b\0c"s},
      {"a\0"s, "b"},
      {"a", "\0b"s},
      {"ten\xC3\xA9nt", "\xF0\x9F\x94\x91"},   // UTF-8 é, and a key emoji
      {"tene\xCC\x81nt", "\xF0\x9F\x94\x91"},  // the same é decomposed: other bytes, other key
      {"TEN\xC3\x89NT", "\xF0\x9F\x94\x91"},   // other case
      {"\xFF\xFE", "\x80"},                    // not UTF-8 at all
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Lease lease = take_ok(keys[i], "holder-" + std::to_string(i));
    EXPECT_EQ(lease.token, Token{1}) << "key #" << i;
    EXPECT_EQ(lease.key, keys[i]) << "key #" << i;
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::optional<Lease> read = repo().read(keys[i]);
    ASSERT_TRUE(read.has_value()) << "key #" << i;
    EXPECT_EQ(read->key, keys[i]) << "key #" << i;  // bytes kept, NULs included
    EXPECT_EQ(read->holder, "holder-" + std::to_string(i)) << "key #" << i;
  }
  // Releasing one key leaves its look-alikes held.
  ASSERT_EQ(repo().release(keys[0], "holder-0", 1), ReleaseStatus::kReleased);
  for (std::size_t i = 1; i < keys.size(); ++i) {
    EXPECT_EQ(repo().take(keys[i], "holder-z", kTtl).status, TakeStatus::kHeld) << "key #" << i;
  }
  EXPECT_EQ(take_ok(keys[0], "holder-z").token, Token{2});
}

}  // namespace fencesim::runtime::contract

// Instantiates the contract for one implementation, at namespace scope of the including file.
// `factory` is callable as `std::unique_ptr<ExecutionLeaseRepository>(Clock& store_clock)`; `Name`
// is an identifier, the prefix of the instantiated tests (Name/LeaseRepositoryContract.Case/Name).
#define FENCESIM_INSTANTIATE_LEASE_REPOSITORY_CONTRACT(Name, factory)                          \
  using ::fencesim::runtime::contract::LeaseRepositoryContract;                                \
  INSTANTIATE_TEST_SUITE_P(                                                                    \
      Name, LeaseRepositoryContract,                                                           \
      ::testing::Values(::fencesim::runtime::contract::LeaseRepositoryImpl{#Name, (factory)}), \
      [](const ::testing::TestParamInfo<::fencesim::runtime::contract::LeaseRepositoryImpl>&   \
             contract_param) { return contract_param.param.name; })
