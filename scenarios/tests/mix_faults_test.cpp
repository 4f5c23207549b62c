// The nightly mix and the swarm hit their worlds with every fault kind their descriptions name, and
// each kind acts in their runs. A sweep only fails a kind that fired, had chances and never acted
// (reports/claims.h): a kind the mix no longer draws (an off-by-one in the kind's draw, a case
// that falls through to the next) fires nowhere, fails no claim, and a correct runtime passes
// every seed without it; the marks the mix declares do not depend on any one kind.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>

#include "scenarios/scenario.h"
#include "scenarios/tests/built_world.h"

namespace fencesim::scenarios::mix_faults_test {
namespace {

using sim::FaultKind;

// The kinds the nightly mix's description names: stalls, stops, migrations, crashes, clock drift,
// network faults (delays, drops, duplicates, partitions) and a slow store.
const std::set<FaultKind> kNightlyKinds{
    FaultKind::kStall,        FaultKind::kStop,          FaultKind::kMigrate,
    FaultKind::kCrash,        FaultKind::kClockDrift,    FaultKind::kNetworkDelay,
    FaultKind::kNetworkDrop,  FaultKind::kNetworkDuplicate, FaultKind::kPartition,
    FaultKind::kStoreSlow};

// What the nightly mix's own draw put in the plans of seeds 1..`seeds`, per kind: the faults at a
// drawn time, but those of a checkpoint store of its own (its extras at protocol moments come with
// triggers; a checkpoint store's trouble, slow among others, has a draw of its own).
std::map<FaultKind, int> kinds_drawn(const Scenario& scenario, std::uint64_t seeds) {
  std::map<FaultKind, int> drawn;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const auto world = testing::built_world(scenario, seed);
    for (const sim::Fault& fault : world->fault_plan().faults) {
      if (fault.trigger || fault.node == "checkpoint-store" || fault.peer == "checkpoint-store") {
        continue;
      }
      ++drawn[fault.kind];
    }
  }
  return drawn;
}

TEST(MixFaults, TheNightlyMixDrawsEveryKindItNames) {
  const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find("nightly-mix");
  ASSERT_NE(scenario, nullptr);
  // 40 seeds draw 3 to 12 timed faults each, of 10 kinds: every kind shows up many times.
  const std::map<FaultKind, int> drawn = kinds_drawn(*scenario, 40);
  for (const FaultKind kind : kNightlyKinds) {
    EXPECT_GE(drawn.count(kind) ? drawn.at(kind) : 0, 5) << "nightly-mix drew " << to_string(kind)
                                                         << " too rarely or never";
  }
}

// The mix's duplicated requests go to both sinks and to the lease store: a take, renewal or
// release copy that lands late, after its sender took the key again, is refused only by its
// token. Drawn on the sinks alone (red team 35b-28: an off-by-one in the target's draw), every
// kind still fires and acts, on the sinks.
TEST(MixFaults, TheNightlyMixDuplicatesRequestsToTheSinksAndToTheLeaseStore) {
  const ScenarioRegistry registry = builtin_scenarios();
  std::map<std::string, int> targets;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const auto world = testing::built_world(*registry.find("nightly-mix"), seed);
    for (const sim::Fault& fault : world->fault_plan().faults) {
      if (fault.kind == FaultKind::kNetworkDuplicate && !fault.trigger) ++targets[fault.node];
    }
  }
  for (const std::string node : {"payments", "ledger", "lease-store"}) {
    EXPECT_GE(targets[node], 3) << "duplicates on " << node;
  }
  EXPECT_EQ(targets.size(), 3u);
}

// The mix's clock drifts run both ways within 80% of the bound: a slow clock makes a holder
// believe its lease too long, a fast one gives it up early, and both must stay inside the
// assumptions (red team 36a-23 drew fast clocks only, and every seed still passed).
TEST(MixFaults, TheNightlyMixDriftsClocksBothWaysInsideTheBound) {
  const ScenarioRegistry registry = builtin_scenarios();
  int slow = 0;
  int fast = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const auto world = testing::built_world(*registry.find("nightly-mix"), seed);
    const std::int64_t bound = world->options().lease.drift_bound_ppm;
    for (const sim::Fault& fault : world->fault_plan().faults) {
      if (fault.kind != FaultKind::kClockDrift) continue;
      EXPECT_LE(fault.amount, bound * 8 / 10) << "seed " << seed;
      EXPECT_GE(fault.amount, -bound * 8 / 10) << "seed " << seed;
      slow += fault.amount < 0;
      fast += fault.amount > 0;
    }
  }
  EXPECT_GE(slow, 5);
  EXPECT_GE(fast, 5);
}

// The swarm's mix is drawn per seed from the nightly mix's kinds and its own: the lease store
// crashing, pauses at a protocol moment, a slow or silent checkpoint store as a remote wait begins,
// network trouble at a protocol moment, and a step of the lease store's clock in a seed in five.
TEST(MixFaults, TheSwarmDrawsEveryKindOfItsMix) {
  const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find("swarm");
  ASSERT_NE(scenario, nullptr);
  std::map<FaultKind, int> drawn;
  int store_crashes = 0;
  int moment_pauses = 0;
  int remote_wait_store = 0;
  int moment_network = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto world = testing::built_world(*scenario, seed);
    for (const sim::Fault& fault : world->fault_plan().faults) {
      ++drawn[fault.kind];
      const bool at_instance = fault.node.starts_with("instance-");
      if (fault.kind == FaultKind::kCrash && fault.node == "lease-store") ++store_crashes;
      if (!fault.trigger) continue;
      const bool pause = fault.kind == FaultKind::kStall || fault.kind == FaultKind::kStop ||
                         fault.kind == FaultKind::kMigrate;
      if (pause && at_instance) ++moment_pauses;
      if (fault.trigger->event == runtime::EventKind::kRemoteWaitBegan && !at_instance &&
          (fault.kind == FaultKind::kStoreSlow || fault.kind == FaultKind::kStoreDown)) {
        ++remote_wait_store;
      }
      if (at_instance &&
          (fault.kind == FaultKind::kNetworkDrop || fault.kind == FaultKind::kNetworkDelay)) {
        ++moment_network;
      }
    }
  }
  for (const FaultKind kind : kNightlyKinds) {
    EXPECT_GE(drawn.count(kind) ? drawn.at(kind) : 0, 1) << "swarm never drew " << to_string(kind);
  }
  EXPECT_GE(drawn.count(FaultKind::kClockStep) ? drawn.at(FaultKind::kClockStep) : 0, 1)
      << "the lease store's clock step";
  EXPECT_GE(store_crashes, 1) << "the lease store's crash";
  EXPECT_GE(moment_pauses, 1) << "a pause at a protocol moment";
  EXPECT_GE(remote_wait_store, 1) << "the checkpoint store's trouble as a remote wait begins";
  EXPECT_GE(moment_network, 1) << "network trouble at a protocol moment";
}

// And what the nightly mix draws acts: over a few runs, each kind it names changed something
// (messages held, dropped, delayed, duplicated or cut; wake-ups missed; a process ended; a clock
// moved), not only had its chances.
TEST(MixFaults, EachKindTheNightlyMixDrawsActs) {
  const ScenarioRegistry registry = builtin_scenarios();
  const Scenario* scenario = registry.find("nightly-mix");
  ASSERT_NE(scenario, nullptr);
  std::map<FaultKind, int> acted;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const auto world = testing::built_world(*scenario, seed);
    world->run();
    for (const sim::FaultEffect& effect : world->fault_effects()) {
      if (effect.acted()) ++acted[effect.kind];
    }
  }
  for (const FaultKind kind : kNightlyKinds) {
    EXPECT_GE(acted.count(kind) ? acted.at(kind) : 0, 1)
        << "no " << to_string(kind) << " of the nightly mix acted in 12 runs";
  }
}

}  // namespace
}  // namespace fencesim::scenarios::mix_faults_test
