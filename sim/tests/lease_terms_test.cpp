// The policy an instance runs with (LeaseTerms::runtime_policy): every term a scenario changed
// from the ADR's reaches the runtime. A term left behind runs the instances on the runtime's
// default while the oracles judge them against the scenario's: a spec's tighter drift bound
// (specs/stall-and-drift.toml: 200 ppm) would keep the default's wider margin and pass, untested.
#include "sim/lease_terms.h"

#include <gtest/gtest.h>

namespace fencesim::sim::lease_terms_test {
namespace {

using runtime::kMillisecond;
using runtime::kSecond;

TEST(LeaseTermsPolicy, EveryTermAScenarioChangesReachesTheRuntime) {
  LeaseTerms terms;
  terms.ttl_ns = 20 * kSecond;
  terms.renew_interval_ns = 5 * kSecond;
  terms.drift_bound_ppm = 200;
  terms.drift_margin_min_ns = 25 * kMillisecond;
  const runtime::LeasePolicy policy = terms.runtime_policy();
  EXPECT_EQ(policy.ttl_ns, 20 * kSecond);
  EXPECT_EQ(policy.renew_interval_ns, 5 * kSecond);
  EXPECT_EQ(policy.drift_bound_ppm, 200);
  EXPECT_EQ(policy.drift_margin_min_ns, 25 * kMillisecond);
}

TEST(LeaseTermsPolicy, ATighterDriftBoundAloneGivesTheRuntimeItsNarrowerMargin) {
  LeaseTerms terms;
  terms.drift_bound_ppm = 200;
  // 2 * 200 ppm of 30 s + 10 ms: the margin the world's oracles hold the holders to.
  EXPECT_EQ(terms.drift_margin_ns(), 22 * kMillisecond);
  EXPECT_EQ(terms.runtime_policy().drift_margin_ns(), terms.drift_margin_ns());
}

}  // namespace
}  // namespace fencesim::sim::lease_terms_test
