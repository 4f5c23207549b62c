// The downstream system that checks tokens its own way (scenarios/downstream_system.h): the rules
// a seed draws, what a rejection reports (the token of the LAST call received, not the mark), and
// the tenant-wide mark that ends with the safety phase. Its calls are driven from steps of a small
// world made here, with no slow or lost calls, so that every verdict is the rules' own.
#include "scenarios/downstream_system.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "properties/run.h"
#include "scenarios/builder.h"

namespace fencesim::scenarios::downstream_system_test {
namespace {

using runtime::ExecutionContext;
using runtime::kSecond;
using Verdict = DownstreamSystem::Verdict;

TEST(DownstreamSystem, RulesAreKeyedByTheTenantInOneSeedInFiveAndStrictInHalfTheOthers) {
  sim::Rng rng(2026);
  int by_tenant = 0;
  int strict = 0;
  for (int draw = 0; draw < 2000; ++draw) {
    const DownstreamRules rules = draw_downstream_rules(rng);
    EXPECT_FALSE(rules.keyed_by_tenant && rules.strict);
    by_tenant += rules.keyed_by_tenant ? 1 : 0;
    strict += rules.strict ? 1 : 0;
  }
  EXPECT_NEAR(by_tenant, 400, 80);
  EXPECT_NEAR(strict, 800, 100);
}

struct Call {
  std::string tree;
  runtime::Nanoseconds at;  // after the step started
  runtime::Token token;
};

// Runs one world whose trees order-1 and order-2 (one tenant) each make their calls, in order,
// through one downstream system with `rules`; returns the replies in the order they came.
std::vector<DownstreamSystem::Reply> replies(DownstreamRules rules, std::vector<Call> calls,
                                             runtime::Nanoseconds safety_phase) {
  rules.slow_share = 0;
  rules.lost_share = 0;
  auto out = std::make_shared<std::vector<DownstreamSystem::Reply>>();
  auto downstream = std::make_shared<std::shared_ptr<DownstreamSystem>>();
  ScenarioRegistry registry;
  ScenarioBuilder("downstream-calls")
      .safety_phase(safety_phase)
      .instance("instance-1")
      .workflow([=](sim::World& world, sim::Rng&) {
        if (!*downstream) *downstream = std::make_shared<DownstreamSystem>(world, rules);
        return runtime::Workflow{
            "calls", {runtime::StepItem{"call", [=](ExecutionContext& ctx) {
                        runtime::Nanoseconds slept = 0;
                        for (const Call& call : calls) {
                          if (call.tree != ctx.tree_key().lease_execution_id) continue;
                          ctx.env().sleep(call.at - slept);
                          slept = call.at;
                          out->push_back((*downstream)->call(ctx, call.token));
                        }
                      }}}};
      })
      .tree("tenant-1", "order-1", "calls")
      .tree("tenant-1", "order-2", "calls")
      .add_to(registry);
  const properties::RunReport report =
      properties::run_scenario(registry, properties::RunRequest{"downstream-calls", 1});
  EXPECT_EQ(report.status, properties::RunStatus::kPass) << report.detail;
  return *out;
}

TEST(DownstreamSystem, ARejectionReportsTheTokenOfTheLastCallReceived) {
  const std::vector<DownstreamSystem::Reply> got =
      replies(DownstreamRules{}, {{"order-1", 1 * kSecond, 7}, {"order-1", 2 * kSecond, 3},
                                  {"order-1", 3 * kSecond, 5}, {"order-1", 4 * kSecond, 7}},
              60 * kSecond);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(got[1].verdict, Verdict::kRejected);
  EXPECT_EQ(got[1].seen, 7);  // the call before it
  EXPECT_EQ(got[2].verdict, Verdict::kRejected);
  EXPECT_EQ(got[2].seen, 3);  // an older token than the caller's: a stale call came in between
  // Not strict: the token of the mark itself goes through again.
  EXPECT_EQ(got[3].verdict, Verdict::kAccepted);
}

TEST(DownstreamSystem, AStrictDownstreamTakesATokenOnce) {
  DownstreamRules rules;
  rules.strict = true;
  const std::vector<DownstreamSystem::Reply> got =
      replies(rules, {{"order-1", 1 * kSecond, 7}, {"order-1", 2 * kSecond, 7}}, 60 * kSecond);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(got[1].verdict, Verdict::kRejected);
  EXPECT_EQ(got[1].seen, 7);
}

// The first call under each key lands and is decided, but its caller sees "unavailable" (after the
// safety phase too: the rule is the story's, not a fault's); every later call is answered.
TEST(DownstreamSystem, TheFirstReplyUnderEachKeyIsLostOnceItsCallLanded) {
  DownstreamRules rules;
  rules.first_reply_lost = true;
  const std::vector<DownstreamSystem::Reply> got =
      replies(rules,
              {{"order-1", 2 * kSecond, 7}, {"order-1", 5 * kSecond, 5},
               {"order-1", 8 * kSecond, 8}, {"order-2", 9 * kSecond, 1}},
              1 * kSecond);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].verdict, Verdict::kUnavailable);
  EXPECT_EQ(got[1].verdict, Verdict::kRejected);  // the lost reply's call landed: its mark is 7
  EXPECT_EQ(got[1].seen, 7);
  EXPECT_EQ(got[2].verdict, Verdict::kAccepted);
  EXPECT_EQ(got[3].verdict, Verdict::kUnavailable);  // order-2's first call: a key of its own
}

// Keyed by the tenant, order-1's token 5 refuses order-2's token 1 while the faults last; once the
// safety phase is over the downstream keys by the lease key again, and order-2 goes through.
TEST(DownstreamSystem, TheTenantWideMarkEndsWithTheSafetyPhase) {
  DownstreamRules rules;
  rules.keyed_by_tenant = true;
  const std::vector<Call> calls{{"order-1", 2 * kSecond, 5}, {"order-2", 4 * kSecond, 1}};
  const std::vector<DownstreamSystem::Reply> troubled = replies(rules, calls, 60 * kSecond);
  ASSERT_EQ(troubled.size(), 2u);
  EXPECT_EQ(troubled[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(troubled[1].verdict, Verdict::kRejected);
  const std::vector<DownstreamSystem::Reply> quiet = replies(rules, calls, 1 * kSecond);
  ASSERT_EQ(quiet.size(), 2u);
  EXPECT_EQ(quiet[0].verdict, Verdict::kAccepted);
  EXPECT_EQ(quiet[1].verdict, Verdict::kAccepted);
}

}  // namespace
}  // namespace fencesim::scenarios::downstream_system_test
