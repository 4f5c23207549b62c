// What a store call says of itself in a timeline, a replay's divergence and a failure's report:
// the operation's own word. Every op is recorded through one enum, so two ops sharing or swapping
// their words would leave every oracle green (they judge by the enum) while a person debugging
// reads a step commit as a tree commit.
#include "sim/store_record.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fencesim::sim::testing::store_record_test {
namespace {

TEST(StoreRecord, EachOperationIsNamedByItsOwnWord) {
  const std::vector<std::pair<StoreOp, std::string>> words = {{StoreOp::kTake, "take"},
                                                              {StoreOp::kRenew, "renew"},
                                                              {StoreOp::kRelease, "release"},
                                                              {StoreOp::kRead, "read"},
                                                              {StoreOp::kCommitStep, "commit-step"},
                                                              {StoreOp::kCommitTree, "commit-tree"},
                                                              {StoreOp::kLoad, "load"},
                                                              {StoreOp::kPlace, "place"},
                                                              {StoreOp::kFinish, "finish"},
                                                              {StoreOp::kWrite, "write"},
                                                              {StoreOp::kCancel, "cancel"}};
  std::set<std::string> seen;
  for (const auto& [op, word] : words) {
    EXPECT_EQ(to_string(op), word);
    seen.insert(std::string(to_string(op)));
  }
  EXPECT_EQ(seen.size(), words.size()) << "two operations share a word";
}

TEST(StoreRecord, AStepCommitIsDescribedAsOne) {
  StoreCall call;
  call.op = StoreOp::kCommitStep;
  call.store = "checkpoints";
  call.key = NameKey(runtime::LeaseKey{"tenant-1", "order-1"});
  call.token = 3;
  call.argument = "charge";
  call.outcome = "committed";
  const std::string text = describe(call);
  EXPECT_EQ(text.rfind("commit-step at checkpoints", 0), 0u) << text;
  EXPECT_NE(text.find("arg=charge"), std::string::npos) << text;
  EXPECT_NE(text.find("token=3"), std::string::npos) << text;
}

}  // namespace
}  // namespace fencesim::sim::testing::store_record_test
