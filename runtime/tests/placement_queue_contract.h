#pragma once
// The contract of PlacementQueue (runtime/placement_queue.h), as a value-parameterized GoogleTest
// suite that every implementation passes: in memory, SQLite, PostgreSQL.
//
// Use: in exactly ONE translation unit of a test binary,
//
//   #include "runtime/tests/placement_queue_contract.h"
//   FENCESIM_INSTANTIATE_PLACEMENT_QUEUE_CONTRACT(Memory, [] {
//     return std::shared_ptr<PlacementQueue>(std::make_shared<MemoryPlacementQueue>());
//   });
//
// Each case gets a fresh, empty queue. A factory with no store to run on calls GTEST_SKIP() (from
// a helper) and returns nullptr.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "runtime/placement_queue.h"

namespace fencesim::runtime::contract {

struct PlacementQueueImpl {
  std::string name;  // a GoogleTest identifier
  std::function<std::shared_ptr<PlacementQueue>()> make;

  friend void PrintTo(const PlacementQueueImpl& impl, std::ostream* os) { *os << impl.name; }
};

class PlacementQueueContract : public ::testing::TestWithParam<PlacementQueueImpl> {
 protected:
  void SetUp() override {
    queue_ = GetParam().make();
    if (IsSkipped()) return;
    ASSERT_NE(queue_, nullptr);
  }
  PlacementQueue& queue() { return *queue_; }

  static std::vector<LeaseKey> keys_of(const std::vector<Placement>& placements) {
    std::vector<LeaseKey> keys;
    for (const Placement& placement : placements) keys.push_back(placement.key);
    return keys;
  }

  std::shared_ptr<PlacementQueue> queue_;
  const LeaseKey root_{"t", "root"};
  const LeaseKey child_{"t", "root/child"};
};

TEST_P(PlacementQueueContract, PendingIsInPlacementOrder) {
  EXPECT_TRUE(queue().pending().empty());
  const LeaseKey later{"a", "a"};  // sorts first by key: order must come from placing
  queue().place(root_, "w", std::nullopt);
  queue().place(child_, "child-w", root_);
  queue().place(later, "w", std::nullopt);
  const std::vector<Placement> pending = queue().pending();
  EXPECT_EQ(keys_of(pending), (std::vector<LeaseKey>{root_, child_, later}));
  ASSERT_EQ(pending.size(), 3u);
  EXPECT_LT(pending[0].sequence, pending[1].sequence);
  EXPECT_LT(pending[1].sequence, pending[2].sequence);
  EXPECT_EQ(pending[1].workflow, "child-w");
  EXPECT_EQ(pending[1].parent, root_);
  EXPECT_EQ(pending[0].parent, std::nullopt);
  EXPECT_FALSE(pending[0].finished);
}

TEST_P(PlacementQueueContract, PlacingTwiceKeepsTheFirstPlacement) {
  queue().place(child_, "child-w", root_);
  const std::optional<Placement> first = queue().find(child_);
  ASSERT_TRUE(first.has_value());
  // A parent step that ran twice places its child again: nothing changes.
  queue().place(child_, "other-w", std::nullopt);
  EXPECT_EQ(queue().find(child_)->workflow, "child-w");
  EXPECT_EQ(queue().find(child_)->parent, root_);
  EXPECT_EQ(queue().find(child_)->sequence, first->sequence);
  EXPECT_EQ(queue().pending().size(), 1u);
}

TEST_P(PlacementQueueContract, FinishedPlacementsLeavePendingButAreStillFound) {
  queue().place(root_, "w", std::nullopt);
  queue().place(child_, "w", root_);
  queue().finish(root_);
  EXPECT_EQ(keys_of(queue().pending()), (std::vector<LeaseKey>{child_}));
  const std::optional<Placement> finished = queue().find(root_);
  ASSERT_TRUE(finished.has_value());
  EXPECT_TRUE(finished->finished);
  // Placing a finished key again does not bring it back.
  queue().place(root_, "w", std::nullopt);
  EXPECT_EQ(keys_of(queue().pending()), (std::vector<LeaseKey>{child_}));
  // Finishing an unknown key is nothing.
  queue().finish(LeaseKey{"t", "unknown"});
  EXPECT_EQ(queue().find(LeaseKey{"t", "unknown"}), std::nullopt);
}

TEST_P(PlacementQueueContract, KeysKeepEveryByte) {
  using namespace std::string_literals;
  const std::vector<LeaseKey> keys = {{"a:b", "c"}, {"a", "b:c"}, {"a\0"s, "b"}, {"", ""}};
  for (const LeaseKey& key : keys) queue().place(key, "w\0x"s, LeaseKey{"\xFF"s, "\0"s});
  EXPECT_EQ(keys_of(queue().pending()), keys);
  for (const LeaseKey& key : keys) {
    const std::optional<Placement> found = queue().find(key);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->workflow, "w\0x"s);
    EXPECT_EQ(found->parent, (LeaseKey{"\xFF"s, "\0"s}));
  }
}

TEST_P(PlacementQueueContract, ARootWithAChildsExecutionIdIsRefused) {
  // A child's key (child_lease_key) placed as a root could share a lease with that child.
  const LeaseKey child = child_lease_key(root_, "g/x");
  ASSERT_TRUE(is_child_execution_id(child.lease_execution_id));
  EXPECT_THROW(queue().place(child, "w", std::nullopt), PlacementError);
  EXPECT_THROW(queue().place(LeaseKey{"t", std::string(kChildExecutionPrefix)}, "w", std::nullopt),
               PlacementError);
  EXPECT_TRUE(queue().pending().empty());
  EXPECT_EQ(queue().find(child), std::nullopt);
  // Placed by its parent, the same key is a child's: accepted.
  queue().place(child, "w", root_);
  ASSERT_TRUE(queue().find(child).has_value());
  EXPECT_EQ(queue().find(child)->parent, root_);
  // An id that only holds the prefix further in is a root's.
  queue().place(LeaseKey{"t", "x@child:"}, "w", std::nullopt);
  EXPECT_EQ(queue().pending().size(), 2u);
}

}  // namespace fencesim::runtime::contract

#define FENCESIM_INSTANTIATE_PLACEMENT_QUEUE_CONTRACT(Name, factory)                          \
  using ::fencesim::runtime::contract::PlacementQueueContract;                                \
  INSTANTIATE_TEST_SUITE_P(                                                                   \
      Name, PlacementQueueContract,                                                           \
      ::testing::Values(::fencesim::runtime::contract::PlacementQueueImpl{#Name, (factory)}), \
      [](const ::testing::TestParamInfo<::fencesim::runtime::contract::PlacementQueueImpl>&   \
             contract_param) { return contract_param.param.name; })
