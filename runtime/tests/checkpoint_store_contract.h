#pragma once
// The contract of CheckpointStore (runtime/checkpoint_store.h), as a value-parameterized
// GoogleTest suite that every implementation passes: in memory, SQLite, PostgreSQL. A checkpoint
// store is co-located with a lease table, so a factory makes the pair.
//
// Use: in exactly ONE translation unit of a test binary,
//
//   #include "runtime/tests/checkpoint_store_contract.h"
//   FENCESIM_INSTANTIATE_CHECKPOINT_STORE_CONTRACT(Memory, [](Clock& store_clock) {
//     return CheckpointContractStores{...};
//   });
//
// Each case gets fresh, empty stores over a fresh ContractClock that the case controls. A factory
// with no store to run on calls GTEST_SKIP() (from a helper) and returns empty stores.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/checkpoint_store.h"
#include "runtime/env.h"
#include "runtime/lease_repository.h"
#include "runtime/testing/stepped_clock.h"

namespace fencesim::runtime::contract {

struct CheckpointContractStores {
  std::shared_ptr<void> owner;  // what both stores use (a database), destroyed after them
  std::unique_ptr<ExecutionLeaseRepository> leases;
  std::unique_ptr<CheckpointStore> checkpoints;  // destroyed first
};

struct CheckpointStoreImpl {
  std::string name;  // a GoogleTest identifier
  std::function<CheckpointContractStores(Clock& store_clock)> make;

  friend void PrintTo(const CheckpointStoreImpl& impl, std::ostream* os) { *os << impl.name; }
};

class CheckpointStoreContract : public ::testing::TestWithParam<CheckpointStoreImpl> {
 protected:
  static constexpr Nanoseconds kTtl = 10 * kSecond;

  void SetUp() override {
    stores_ = GetParam().make(clock_);
    if (IsSkipped()) return;
    ASSERT_NE(stores_.leases, nullptr);
    ASSERT_NE(stores_.checkpoints, nullptr);
  }

  ExecutionLeaseRepository& leases() { return *stores_.leases; }
  CheckpointStore& checkpoints() { return *stores_.checkpoints; }

  Token take(const LeaseKey& key, const HolderId& holder) {
    const TakeResult result = leases().take(key, holder, kTtl);
    EXPECT_EQ(result.status, TakeStatus::kTaken) << to_string(key);
    return result.lease.token;
  }

  testing::SteppedClock clock_;
  CheckpointContractStores stores_;
  const LeaseKey key_{"tenant-1", "exec-1"};
};

TEST_P(CheckpointStoreContract, AKeyNeverCommittedLoadsEmpty) {
  const Checkpoint empty = checkpoints().load(key_);
  EXPECT_TRUE(empty.completed_steps.empty());
  EXPECT_FALSE(empty.tree_completed);
  EXPECT_EQ(empty.last_token, kTokenNone);
}

TEST_P(CheckpointStoreContract, TheCurrentHolderCommitsStepsAndTheTree) {
  const Token token = take(key_, "holder-a");
  const CommitResult first = checkpoints().commit_step(key_, token, "root/a");
  EXPECT_EQ(first.status, CommitStatus::kCommitted);
  EXPECT_EQ(first.current_epoch, token);
  EXPECT_EQ(checkpoints().commit_step(key_, token, "root/b").status, CommitStatus::kCommitted);
  // A step committed twice (a re-run) is recorded once.
  EXPECT_EQ(checkpoints().commit_step(key_, token, "root/a").status, CommitStatus::kCommitted);

  Checkpoint loaded = checkpoints().load(key_);
  EXPECT_EQ(loaded.completed_steps, (std::set<std::string>{"root/a", "root/b"}));
  EXPECT_FALSE(loaded.tree_completed);
  EXPECT_EQ(loaded.last_token, token);

  EXPECT_EQ(checkpoints().commit_tree(key_, token).status, CommitStatus::kCommitted);
  loaded = checkpoints().load(key_);
  EXPECT_TRUE(loaded.tree_completed);
  EXPECT_EQ(loaded.completed_steps.size(), 2u);
}

TEST_P(CheckpointStoreContract, AStaleOrFutureTokenIsRefusedAndWritesNothing) {
  const Token first = take(key_, "holder-a");
  ASSERT_EQ(checkpoints().commit_step(key_, first, "a").status, CommitStatus::kCommitted);
  clock_.advance(kTtl);
  const Token second = take(key_, "holder-b");
  ASSERT_EQ(second, first + 1);

  for (const Token token : {first, second + 1, kTokenNone}) {
    const CommitResult step = checkpoints().commit_step(key_, token, "stale-step");
    EXPECT_EQ(step.status, CommitStatus::kRefused) << "token " << token;
    EXPECT_EQ(step.current_epoch, second) << "token " << token;
    const CommitResult tree = checkpoints().commit_tree(key_, token);
    EXPECT_EQ(tree.status, CommitStatus::kRefused) << "token " << token;
    EXPECT_EQ(tree.current_epoch, second) << "token " << token;
  }
  const Checkpoint loaded = checkpoints().load(key_);
  EXPECT_EQ(loaded.completed_steps, (std::set<std::string>{"a"}));
  EXPECT_FALSE(loaded.tree_completed);
  EXPECT_EQ(loaded.last_token, first);

  EXPECT_EQ(checkpoints().commit_step(key_, second, "b").status, CommitStatus::kCommitted);
  EXPECT_EQ(checkpoints().load(key_).last_token, second);
}

TEST_P(CheckpointStoreContract, AKeyWithoutALeaseRefusesEveryCommit) {
  const CommitResult result = checkpoints().commit_step(key_, 1, "a");
  EXPECT_EQ(result.status, CommitStatus::kRefused);
  EXPECT_EQ(result.current_epoch, kTokenNone);
  EXPECT_EQ(checkpoints().commit_tree(key_, 1).status, CommitStatus::kRefused);
  EXPECT_TRUE(checkpoints().load(key_).completed_steps.empty());
}

TEST_P(CheckpointStoreContract, AReleasedLeaseRefusesItsHoldersCommits) {
  const Token token = take(key_, "holder-a");
  ASSERT_EQ(leases().release(key_, "holder-a", token), ReleaseStatus::kReleased);
  const CommitResult result = checkpoints().commit_step(key_, token, "a");
  EXPECT_EQ(result.status, CommitStatus::kRefused);
  EXPECT_EQ(result.current_epoch, token);
  EXPECT_EQ(checkpoints().commit_tree(key_, token).status, CommitStatus::kRefused);
  EXPECT_TRUE(checkpoints().load(key_).completed_steps.empty());
}

TEST_P(CheckpointStoreContract, AnExpiredLeaseNobodyTookStillCommits) {
  // No other holder can have written since: the epoch is still the key's.
  const Token token = take(key_, "holder-a");
  clock_.advance(2 * kTtl);
  EXPECT_EQ(checkpoints().commit_step(key_, token, "a").status, CommitStatus::kCommitted);
  // Until someone takes the key.
  const Token next = take(key_, "holder-b");
  EXPECT_EQ(checkpoints().commit_step(key_, token, "b").status, CommitStatus::kRefused);
  EXPECT_EQ(checkpoints().commit_step(key_, next, "b").status, CommitStatus::kCommitted);
}

TEST_P(CheckpointStoreContract, KeysAndStepPathsKeepEveryByte) {
  using namespace std::string_literals;
  const std::vector<LeaseKey> keys = {{"a:b", "c"}, {"a", "b:c"}, {"a\0"s, "b"}, {"a", "\0b"s}};
  const std::vector<std::string> paths = {"p\0q"s, "\xFF\xFE", "ten\xC3\xA9nt/\xF0\x9F\x94\x91",
                                          ""};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const Token token = take(keys[i], "holder");
    ASSERT_EQ(checkpoints().commit_step(keys[i], token, paths[i]).status, CommitStatus::kCommitted);
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(checkpoints().load(keys[i]).completed_steps, (std::set<std::string>{paths[i]}))
        << "key #" << i;
  }
}

// Cancellation (#360): a client's cancel is recorded once, loads report it, and it and the tree's
// completion exclude each other, whichever the store judged first winning.
TEST_P(CheckpointStoreContract, ACancelIsRecordedOnceAndLoaded) {
  EXPECT_FALSE(checkpoints().load(key_).cancelled);
  EXPECT_EQ(checkpoints().request_cancel(key_), CancelStatus::kRecorded);
  EXPECT_TRUE(checkpoints().load(key_).cancelled);
  EXPECT_EQ(checkpoints().request_cancel(key_), CancelStatus::kAlreadyRecorded);
  // A key never placed nor taken: its checkpoint is otherwise empty.
  const Checkpoint loaded = checkpoints().load(key_);
  EXPECT_TRUE(loaded.completed_steps.empty());
  EXPECT_FALSE(loaded.tree_completed);
  EXPECT_EQ(loaded.last_token, kTokenNone);
  // Other keys are not cancelled.
  EXPECT_FALSE(checkpoints().load(LeaseKey{"tenant-1", "exec-2"}).cancelled);
  EXPECT_FALSE(checkpoints().load(LeaseKey{"tenant-2", "exec-1"}).cancelled);
}

TEST_P(CheckpointStoreContract, ACancelledTreeNeverCompletesButItsStepsStillCommit) {
  const Token token = take(key_, "holder-a");
  ASSERT_EQ(checkpoints().commit_step(key_, token, "a").status, CommitStatus::kCommitted);
  ASSERT_EQ(checkpoints().request_cancel(key_), CancelStatus::kRecorded);
  const CommitResult tree = checkpoints().commit_tree(key_, token);
  EXPECT_EQ(tree.status, CommitStatus::kCancelled);
  EXPECT_EQ(tree.current_epoch, token);
  // A step's outcome is a fact of the past: it still commits under the current token.
  EXPECT_EQ(checkpoints().commit_step(key_, token, "b").status, CommitStatus::kCommitted);
  const Checkpoint loaded = checkpoints().load(key_);
  EXPECT_FALSE(loaded.tree_completed);
  EXPECT_TRUE(loaded.cancelled);
  EXPECT_EQ(loaded.completed_steps, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(loaded.last_token, token);
}

TEST_P(CheckpointStoreContract, ACompletedTreeCannotBeCancelled) {
  const Token token = take(key_, "holder-a");
  ASSERT_EQ(checkpoints().commit_tree(key_, token).status, CommitStatus::kCommitted);
  EXPECT_EQ(checkpoints().request_cancel(key_), CancelStatus::kTreeCompleted);
  const Checkpoint loaded = checkpoints().load(key_);
  EXPECT_TRUE(loaded.tree_completed);
  EXPECT_FALSE(loaded.cancelled);
}

TEST_P(CheckpointStoreContract, AStaleCompletionOfACancelledTreeIsRefusedAsStale) {
  const Token first = take(key_, "holder-a");
  clock_.advance(kTtl);
  const Token second = take(key_, "holder-b");
  ASSERT_EQ(checkpoints().request_cancel(key_), CancelStatus::kRecorded);
  const CommitResult stale = checkpoints().commit_tree(key_, first);
  EXPECT_EQ(stale.status, CommitStatus::kRefused);
  EXPECT_EQ(stale.current_epoch, second);
  EXPECT_EQ(checkpoints().commit_tree(key_, second).status, CommitStatus::kCancelled);
  EXPECT_FALSE(checkpoints().load(key_).tree_completed);
}

}  // namespace fencesim::runtime::contract

// Instantiates the contract for one implementation, at namespace scope of the including file.
#define FENCESIM_INSTANTIATE_CHECKPOINT_STORE_CONTRACT(Name, factory)                          \
  using ::fencesim::runtime::contract::CheckpointStoreContract;                                \
  INSTANTIATE_TEST_SUITE_P(                                                                    \
      Name, CheckpointStoreContract,                                                           \
      ::testing::Values(::fencesim::runtime::contract::CheckpointStoreImpl{#Name, (factory)}), \
      [](const ::testing::TestParamInfo<::fencesim::runtime::contract::CheckpointStoreImpl>&   \
             contract_param) { return contract_param.param.name; })
