// The write-verdict oracle on hand-made histories: a write that returns what the sink judged
// passes; a refusal returned as a reply, and a reply the sink never gave, are reported. Found by
// the mechanical mutants (tools/mutate/): with the reply's handling negated, a refused write
// returned to its body and no other invariant noticed, since they saw refusals only through the
// runtime's own events.
#include <gtest/gtest.h>

#include "properties/invariants_write_verdict.h"
#include "properties/tests/story_event.h"

namespace fencesim::properties::write_verdict_test {
namespace {

constexpr sim::NodeId kSink = 1;
constexpr sim::NodeId kInstance = 2;
const runtime::LeaseKey kTree{"tenant-1", "order-1"};

class Story {
 public:
  // The workload means to write `payload` at `at_ns` (World::intend).
  void intend(std::int64_t at_ns, const std::string& payload, runtime::Token token = 1) {
    sim::HistoryEvent e = stamped(kInstance, sim::WorldEventKind::kIntent, at_ns);
    e.runtime.holder = "payments";
    e.runtime.key = kTree;
    e.runtime.step = "charge";
    e.runtime.detail = "write";
    e.runtime.token = token;
    e.detail = payload;
    events_.push_back(std::move(e));
  }
  // The sink judges a write of `payload` under `token`.
  void sink(std::int64_t at_ns, const std::string& payload, std::string outcome,
            runtime::Token token = 1) {
    sim::StoreCall c;
    c.op = sim::StoreOp::kWrite;
    c.store = "payments";
    c.token = token;
    c.payload = payload;
    c.outcome = std::move(outcome);
    sim::HistoryEvent e = stamped(kSink, sim::WorldEventKind::kStoreCall, at_ns);
    e.store = std::make_shared<const sim::StoreCall>(std::move(c));
    events_.push_back(std::move(e));
  }
  // The body saw its write, begun at `began_ns`, return `outcome`.
  void saw(std::int64_t began_ns, std::int64_t at_ns, std::string outcome,
           runtime::Token token = 1) {
    sim::HistoryEvent e = stamped(kInstance, sim::WorldEventKind::kObserved, at_ns);
    e.runtime.holder = "write";
    e.runtime.key = kTree;
    e.runtime.token = token;
    e.runtime.step = "charge";
    e.runtime.scope_key = "payments";
    e.runtime.detail = "write";
    e.runtime.value = began_ns;
    e.detail = std::move(outcome);
    events_.push_back(std::move(e));
  }
  std::vector<Violation> check() const {
    std::vector<Violation> out;
    check_write_verdict(events_, out);
    return out;
  }

 private:
  sim::HistoryEvent stamped(sim::NodeId node, sim::WorldEventKind kind, std::int64_t at_ns) {
    return testing::next_event(events_, node, kind, at_ns);
  }
  Events events_;
};

TEST(WriteVerdict, RepliesTheSinkGavePass) {
  Story story;
  story.intend(10, "effect-a");
  story.sink(20, "effect-a", "applied");
  story.saw(10, 30, "applied");
  story.intend(40, "effect-a");  // a re-run: the sink deduplicates
  story.sink(50, "effect-a", "deduplicated");
  story.saw(40, 60, "deduplicated");
  story.intend(70, "effect-b");  // refused, and the body got the error
  story.sink(80, "effect-b", "refused");
  story.saw(70, 90, "error: execution fenced");
  EXPECT_TRUE(story.check().empty());
}

TEST(WriteVerdict, ARefusalReturnedAsAReplyIsReported) {
  Story story;
  story.intend(10, "effect-a");
  story.sink(20, "effect-a", "refused");
  story.saw(10, 30, "refused");
  const auto out = story.check();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("return 'refused'"), std::string::npos) << out[0].message;
}

// Every refusal returned as a reply is reported, not only the first (an oracle that stopped at its
// first report passed the test above: tools/quiet-oracles.py --first-only).
TEST(WriteVerdict, EveryRefusalReturnedAsAReplyIsReported) {
  Story story;
  story.intend(10, "effect-a");
  story.sink(20, "effect-a", "refused");
  story.saw(10, 30, "refused");
  story.intend(40, "effect-b", 2);
  story.sink(50, "effect-b", "refused", 2);
  story.saw(40, 60, "refused", 2);
  const auto out = story.check();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[0].message.find("under token 1 return 'refused'"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[1].message.find("under token 2 return 'refused'"), std::string::npos)
      << out[1].message;
}

// A write the body saw return, with no intent at or before the call began (none at all, or only a
// later one): the workload's record and the runtime's call do not match (a site no test reached;
// tools/quiet-oracles.py --sites).
TEST(WriteVerdict, AWriteNoIntentBeganIsReported) {
  Story story;
  story.sink(20, "effect-a", "applied");
  story.saw(10, 30, "applied");  // no intent at all
  story.intend(50, "effect-b");  // an intent only after the call began
  story.sink(60, "effect-b", "applied");
  story.saw(40, 70, "applied");
  const auto out = story.check();
  ASSERT_EQ(out.size(), 2u);
  for (const Violation& v : out) {
    EXPECT_NE(v.message.find("but no intent began that call"), std::string::npos) << v.message;
  }
}

TEST(WriteVerdict, AReplyTheSinkNeverGaveIsReported) {
  Story story;
  story.intend(10, "effect-a");
  story.sink(20, "effect-a", "refused");
  story.saw(10, 30, "applied");  // the sink refused it
  story.intend(40, "effect-b");
  story.saw(40, 50, "applied");  // the sink never judged it
  story.intend(60, "effect-c", 2);
  story.sink(70, "effect-c", "applied", 1);  // another token's write of that payload
  story.saw(60, 80, "applied", 2);
  story.intend(90, "effect-d");
  story.sink(85, "effect-d", "applied");  // before the call began: an earlier call's verdict
  story.saw(90, 100, "applied");
  const auto out = story.check();
  ASSERT_EQ(out.size(), 4u);
  EXPECT_NE(out[0].message.find("judged that payload as refused"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[1].message.find("judged that payload never"), std::string::npos) << out[1].message;
}

// The reply is the sink's own verdict: "applied" for a write the sink only deduplicated (or the
// reverse) is a reply the sink never gave (red team 34b: any verdict but a refusal matched any
// reply, and a runtime that told its step "applied" for a deduplicated write passed).
TEST(WriteVerdict, AnAppliedReplyToADeduplicatedWriteIsReported) {
  Story story;
  story.intend(10, "effect-a");
  story.sink(20, "effect-a", "deduplicated");
  story.saw(10, 30, "applied");
  story.intend(40, "effect-b");
  story.sink(50, "effect-b", "applied");
  story.saw(40, 60, "deduplicated");
  const auto out = story.check();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[0].message.find("judged that payload as deduplicated"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[1].message.find("judged that payload as applied"), std::string::npos)
      << out[1].message;
}

// A reply is the sink's verdict only if the sink gave it while the call was out: a verdict the sink
// gave after the call returned (a retry's, a late copy of the request's) is not what the call saw.
// (Red team 34b dropped the oracle's bound on the verdict's time: equivalent, since the oracle
// walks the history in order and a later verdict is not yet among those it has read; this test
// keeps the rule whatever the walk.)
TEST(WriteVerdict, AVerdictAfterTheCallReturnedIsNotItsReply) {
  Story story;
  story.intend(10, "effect-a");
  story.saw(10, 20, "applied");  // returned before the sink judged it
  story.sink(30, "effect-a", "applied");
  const auto out = story.check();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].message.find("judged that payload never"), std::string::npos)
      << out[0].message;
}

}  // namespace
}  // namespace fencesim::properties::write_verdict_test
