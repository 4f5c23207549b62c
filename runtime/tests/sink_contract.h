#pragma once
// The contract of a token-checking Sink (runtime/sink.h), as a value-parameterized GoogleTest
// suite that every implementation passes: in memory, SQLite, PostgreSQL. The first case is the
// runtime's own Sink test (fence_test.cpp, Sink.HighWaterMarkIsKeyedByScopeKey), case for case.
//
// Use: in exactly ONE translation unit of a test binary,
//
//   #include "runtime/tests/sink_contract.h"
//   FENCESIM_INSTANTIATE_SINK_CONTRACT(Memory, [](const std::string& name, Observer& observer) {
//     return std::shared_ptr<Sink>(std::make_shared<MemorySink>(name, observer));
//   });
//
// Each case gets a fresh, empty sink. A factory with no store to run on calls GTEST_SKIP() (from
// a helper) and returns nullptr.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "runtime/observer.h"
#include "runtime/sink.h"
#include "runtime/testing/recording_observer.h"

namespace fencesim::runtime::contract {

struct SinkImpl {
  std::string name;  // a GoogleTest identifier
  std::function<std::shared_ptr<Sink>(const std::string& sink_name, Observer& observer)> make;

  friend void PrintTo(const SinkImpl& impl, std::ostream* os) { *os << impl.name; }
};

class SinkContract : public ::testing::TestWithParam<SinkImpl> {
 protected:
  void SetUp() override {
    sink_ = GetParam().make("sink", events_);
    if (IsSkipped()) return;
    ASSERT_NE(sink_, nullptr);
  }
  Sink& sink() { return *sink_; }

  testing::RecordingObserver events_;
  std::shared_ptr<Sink> sink_;
};

TEST_P(SinkContract, HighWaterMarkIsKeyedByScopeKey) {
  EXPECT_EQ(sink().write({"t:child-a", 5, "a", ""}).outcome, SinkOutcome::kApplied);
  // Another scope key of the same tenant and sink, with an independent (lower) epoch.
  EXPECT_EQ(sink().write({"t:child-b", 1, "b", ""}).outcome, SinkOutcome::kApplied);
  EXPECT_EQ(sink().write({"t:child-a", 4, "c", ""}).outcome, SinkOutcome::kRefused);
  EXPECT_EQ(sink().write({"t:child-a", 5, "a", ""}).outcome, SinkOutcome::kDeduplicated);
}

TEST_P(SinkContract, ATokenBelowTheHighWaterIsRefusedAndAnEqualOneAccepted) {
  EXPECT_EQ(sink().name(), "sink");
  const SinkReply first = sink().write({"s", 3, "k1", "p1"});
  EXPECT_EQ(first.outcome, SinkOutcome::kApplied);
  EXPECT_EQ(first.high_water, Token{3});

  const SinkReply stale = sink().write({"s", 2, "k2", "p2"});
  EXPECT_EQ(stale.outcome, SinkOutcome::kRefused);
  EXPECT_EQ(stale.high_water, Token{3});
  // A refused write left no effect: the same key with the current token is applied, not a dup.
  const SinkReply equal = sink().write({"s", 3, "k2", "p2"});
  EXPECT_EQ(equal.outcome, SinkOutcome::kApplied);
  EXPECT_EQ(equal.high_water, Token{3});

  const SinkReply higher = sink().write({"s", 7, "k3", "p3"});
  EXPECT_EQ(higher.outcome, SinkOutcome::kApplied);
  EXPECT_EQ(higher.high_water, Token{7});
  EXPECT_EQ(sink().write({"s", 3, "k4", "p4"}).outcome, SinkOutcome::kRefused);
}

TEST_P(SinkContract, AnIdempotencyKeyIsAppliedOncePerScopeKey) {
  EXPECT_EQ(sink().write({"s", 1, "k", "first"}).outcome, SinkOutcome::kApplied);
  EXPECT_EQ(sink().write({"s", 1, "k", "second"}).outcome, SinkOutcome::kDeduplicated);
  // The same idempotency key under another scope key is another effect.
  EXPECT_EQ(sink().write({"t", 1, "k", "other"}).outcome, SinkOutcome::kApplied);
  // A stale duplicate is refused, not deduplicated: the token is judged first.
  EXPECT_EQ(sink().write({"s", 2, "k2", ""}).outcome, SinkOutcome::kApplied);
  EXPECT_EQ(sink().write({"s", 1, "k", "late"}).outcome, SinkOutcome::kRefused);
}

TEST_P(SinkContract, ADuplicateWithAHigherTokenRaisesTheHighWater) {
  // A takeover re-runs the step: its write is a duplicate, yet its token fences the old holder.
  ASSERT_EQ(sink().write({"s", 1, "k", ""}).outcome, SinkOutcome::kApplied);
  const SinkReply rerun = sink().write({"s", 2, "k", ""});
  EXPECT_EQ(rerun.outcome, SinkOutcome::kDeduplicated);
  EXPECT_EQ(rerun.high_water, Token{2});
  EXPECT_EQ(sink().write({"s", 1, "k-other", ""}).outcome, SinkOutcome::kRefused);
}

TEST_P(SinkContract, EveryOutcomeIsReportedOnceWithTheHighWater) {
  sink().write({"s", 4, "k", ""});
  sink().write({"s", 4, "k", ""});
  sink().write({"s", 3, "j", ""});
  ASSERT_EQ(events_.events().size(), 3u);
  const EventKind kinds[] = {EventKind::kSinkApplied, EventKind::kSinkDeduplicated,
                             EventKind::kSinkRefused};
  for (std::size_t i = 0; i < 3; ++i) {
    const RuntimeEvent& event = events_.events()[i];
    EXPECT_EQ(event.kind, kinds[i]) << "event #" << i;
    EXPECT_EQ(event.holder, "sink") << "event #" << i;
    EXPECT_EQ(event.scope_key, "s") << "event #" << i;
    EXPECT_EQ(event.value, 4) << "event #" << i;
  }
  EXPECT_EQ(events_.events()[2].token, Token{3});
  EXPECT_EQ(events_.events()[2].detail, "j");
}

}  // namespace fencesim::runtime::contract

#define FENCESIM_INSTANTIATE_SINK_CONTRACT(Name, factory)                           \
  using ::fencesim::runtime::contract::SinkContract;                                \
  INSTANTIATE_TEST_SUITE_P(                                                         \
      Name, SinkContract,                                                           \
      ::testing::Values(::fencesim::runtime::contract::SinkImpl{#Name, (factory)}), \
      [](const ::testing::TestParamInfo<::fencesim::runtime::contract::SinkImpl>&   \
             contract_param) { return contract_param.param.name; })
