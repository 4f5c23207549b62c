// step-commits-under-its-token on hand-made histories: a commit that reaches the store under a
// token its node held at no start of the step is reported; one under a token of any start of it
// (a late delivery after the step started again) is not. Its runtime mutant cannot reach it on
// today's runtime (the lane counters keep a retake from happening during a commit), so these are
// what shows the oracle can still fail.
#include <gtest/gtest.h>

#include <memory>

#include "properties/invariants_commit_token.h"

namespace fencesim::properties::commit_token_test {
namespace {

using runtime::EventKind;

constexpr sim::NodeId kNode = 2;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Story {
 public:
  void holder(EventKind kind, runtime::Token token, sim::NodeId node = kNode) {
    sim::HistoryEvent e = next(node);
    e.runtime = sim::RuntimeRecord(
        runtime::RuntimeEvent{kind, "a", kTree, "tenant-1:order-1", token, "charge", {}, 0});
    events_.push_back(std::move(e));
  }
  void commit(runtime::Token token, sim::NodeId from = kNode, std::string path = "charge") {
    sim::HistoryEvent e = next(1);
    e.world = sim::WorldEventKind::kStoreCall;
    auto call = std::make_shared<sim::StoreCall>();
    call->op = sim::StoreOp::kCommitStep;
    call->key = kTree;
    call->token = token;
    call->argument = std::move(path);
    call->from = from;
    call->outcome = "committed";
    e.store = std::move(call);
    events_.push_back(std::move(e));
  }
  std::vector<Violation> judged() const {
    std::vector<Violation> out;
    check_step_commits_under_its_token(events_, out);
    return out;
  }

 private:
  sim::HistoryEvent next(sim::NodeId node) const {
    sim::HistoryEvent e;
    e.index = events_.size();
    e.time_ns = static_cast<std::int64_t>(events_.size()) * runtime::kSecond;
    e.node = node;
    return e;
  }
  Events events_;
};

TEST(StepCommitsUnderItsToken, ACommitUnderATokenTakenAfterTheStepStartedIsReported) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 2);  // a retake after a yield, while the step ran
  story.commit(2);
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].invariant, "step-commits-under-its-token");
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{1, 3}));
}

TEST(StepCommitsUnderItsToken, ACommitUnderTheStepsOwnTokenIsNot) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 2);
  story.commit(1);
  EXPECT_TRUE(story.judged().empty());
}

TEST(StepCommitsUnderItsToken, ALateCommitOfAnEarlierStartIsItsOwn) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 3);  // a later pass of the same node
  story.holder(EventKind::kStepStarted, 3);
  story.commit(1);  // the first pass's commit, delivered late
  story.commit(3);
  EXPECT_TRUE(story.judged().empty());
}

// A token between two starts is no start's: the tokens of the starts are a set, not a bound
// (red-team round 28e: an oracle that let through every token up to the latest start's missed a
// commit under a token the node took, gave up and took again over, without starting the step).
TEST(StepCommitsUnderItsToken, ATokenBelowTheLatestStartsIsNotOneOfItsStarts) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 2);  // taken, the step never started under it
  story.holder(EventKind::kLeaseTaken, 3);
  story.holder(EventKind::kStepStarted, 3);
  story.commit(2);  // event 5
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{4, 5}));
}

// The token a start is judged by is the one the node last took, never the one the runtime writes
// on its step-started record: a runtime that kept the frame of a pass's old lease across its
// retake starts the step saying token 1 while the node holds token 2, and commits under token 1,
// a token the node no longer held at any start of the step (red team 35a-31: the oracle recorded
// the start's own token, and such a commit passed).
TEST(StepCommitsUnderItsToken, AStartRecordedUnderAnOlderTokenThanTheTakeIsJudgedByTheTake) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kLeaseTaken, 2);   // the retake after a yield
  story.holder(EventKind::kStepStarted, 1);  // event 2: started saying the old token
  story.commit(1);                           // event 3
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_NE(found[0].message.find("under token 1, a token the node held at no start"),
            std::string::npos)
      << found[0].message;
}

TEST(StepCommitsUnderItsToken, OtherNodesAndStepsAreApart) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 2, 3);  // another node takes token 2
  story.commit(2, 3);                          // and commits a step it never started: not judged
  story.commit(2, kNode);                      // node 2 never held token 2
  EXPECT_EQ(story.judged().size(), 1u);
}

// Every wrong commit is its own report: an oracle that stopped at its first would still fail the
// run, but a history with two wrong commits (two steps, or a second one of another kind) would be
// triaged by the first alone, and a shrink that keeps "the same first invariant" could lose the
// second.
TEST(StepCommitsUnderItsToken, EachCommitUnderATokenOfNoStartIsReportedAtItsOwnCommit) {
  Story story;
  story.holder(EventKind::kLeaseTaken, 1);
  story.holder(EventKind::kStepStarted, 1);
  story.holder(EventKind::kLeaseTaken, 2);
  story.commit(2);            // event 3: step charge under token 2, started under 1
  story.commit(1, kNode, "ship");  // event 4: never started: not judged
  story.commit(4);            // event 5: token 4 was never held
  const std::vector<Violation> found = story.judged();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].events, (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(found[1].events, (std::vector<std::uint64_t>{1, 5}));
}

}  // namespace
}  // namespace fencesim::properties::commit_token_test
