// Failure signatures: the same bug on different seeds (and scenarios) gives one signature, made
// from the violation's invariant and the events it points at, never from its message; another
// invariant or another shape of events gives another; harness errors by kind and site.
#include "reports/signature.h"

#include <gtest/gtest.h>

#include <set>

#include "properties/run.h"
#include "scenarios/scenario.h"

namespace fencesim::reports::signature_test {
namespace {

const scenarios::ScenarioRegistry& registry() {
  static const scenarios::ScenarioRegistry builtin = scenarios::builtin_scenarios();
  return builtin;
}

struct Signed {
  properties::RunReport report;
  std::string signature;
  // Signatures of made-up violations, computed on the same world.
  std::vector<std::string> others;
  std::uint64_t first_grant = 0;  // history index of the lease store's first grant
  std::uint64_t first_phase = 0;  // history index of the safety phase's start
};

Signed run_signed(const std::string& scenario, std::uint64_t seed, const std::string& sink_double,
                  const std::vector<properties::Violation>& others = {}) {
  properties::RunRequest request;
  request.scenario = scenario;
  request.seed = seed;
  request.sink_double = sink_double;
  Signed out;
  out.report = properties::run_scenario(
      registry(), request, [&](const sim::World& world, const properties::RunReport& report) {
        out.signature = run_signature(world, report);
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kPhase) {
            out.first_phase = e.index;
            break;
          }
        }
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == runtime::EventKind::kStoreLeaseGranted) {
            out.first_grant = e.index;
            break;
          }
        }
        for (const properties::Violation& other : others) {
          out.others.push_back(violation_signature(world, other));
        }
      });
  return out;
}

// The planted bug (every sink accepts stale tokens) on 12 seeds of two scenarios and both
// strategies' worth of different histories: every failure has the one signature.
TEST(SignatureTest, TheSamePlantedBugOnDifferentSeedsAndScenariosHasOneSignature) {
  std::set<std::string> signatures;
  std::set<std::uint64_t> hashes;
  std::set<std::string> messages;
  std::uint64_t failures = 0;
  for (const char* scenario : {"kleppmann-fencing", "expiry-during-write"}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Signed run = run_signed(scenario, seed, "accept-stale");
      if (run.report.status != properties::RunStatus::kViolation) continue;
      ++failures;
      signatures.insert(run.signature);
      hashes.insert(run.report.history_hash);
      messages.insert(run.report.violations.front().message);
    }
  }
  ASSERT_GE(failures, 10u);
  EXPECT_GT(hashes.size(), 1u);  // the histories differ: the signature does not
  ASSERT_EQ(signatures.size(), 1u) << *signatures.begin();
  EXPECT_EQ(*signatures.begin(), "sink-monotonicity: sink-accepted(sink)");
}

TEST(SignatureTest, NoIdsNamesOrTimesReachTheSignature) {
  const Signed run = run_signed("kleppmann-fencing", 1, "accept-stale");
  ASSERT_EQ(run.report.status, properties::RunStatus::kViolation);
  for (const char* word : {"tenant", "order", "payments", "instance", "token 1", "#"}) {
    // "instance" may only appear as a role in parentheses, which this signature has none of.
    EXPECT_EQ(run.signature.find(word), std::string::npos) << word << " in " << run.signature;
  }
}

// Taken from the violation's structured parts: another message, the same signature; another
// invariant or other events, another signature.
TEST(SignatureTest, InvariantAndEventsDecideNotTheMessage) {
  const Signed plain = run_signed("kleppmann-fencing", 1, "accept-stale");
  ASSERT_FALSE(plain.report.violations.empty());
  properties::Violation reworded = plain.report.violations.front();
  reworded.message = "a wholly different wording, naming tenant-9 and token 77";
  properties::Violation other_invariant = plain.report.violations.front();
  other_invariant.invariant = "exactly-once";
  // Other events: a grant at the lease store besides the sink's accepts.
  properties::Violation reversed = plain.report.violations.front();
  reversed.events.push_back(plain.first_grant);
  properties::Violation listed_twice = plain.report.violations.front();
  listed_twice.events.push_back(listed_twice.events.front());  // a term that repeats counts once
  // per-key-epochs points at the run's phase event as "the grant before" a first grant: the start
  // of the run is no part of the bug's shape. (Submissions recorded at the store come first.)
  const properties::Violation from_start{
      "per-key-epochs", "m", {plain.first_phase, plain.first_grant}};
  const Signed again = run_signed("kleppmann-fencing", 1, "accept-stale",
                                  {reworded, other_invariant, reversed, listed_twice, from_start});
  ASSERT_EQ(again.others.size(), 5u);
  EXPECT_EQ(again.others[4], "per-key-epochs: store-lease-granted(store)");
  EXPECT_EQ(again.others[0], plain.signature);
  EXPECT_NE(again.others[1], plain.signature);
  EXPECT_TRUE(again.others[1].starts_with("exactly-once: ")) << again.others[1];
  EXPECT_EQ(again.others[2],
            "sink-monotonicity: store-lease-granted(store) -> sink-accepted(sink)");
  EXPECT_EQ(again.others[3], plain.signature);
}

// A lease lost at its local expiry and one lost to a refused renewal are two bugs: a term of a kind
// whose detail is a code ("local-expiry", "execution.lease-lost.fenced") carries that code. Codes
// are lower-case words joined by dots and dashes; a term that dropped a dashed code would merge
// them.
TEST(SignatureTest, ALeaseLostTermCarriesWhyItWasLost) {
  properties::RunRequest request;
  request.scenario = "kleppmann-fencing";
  request.seed = 1;
  std::string reason;
  std::string signature;
  properties::run_scenario(
      registry(), request, [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == runtime::EventKind::kLeaseLost) {
            reason = std::string(e.runtime.detail.str());
            signature = violation_signature(world, properties::Violation{"x", "m", {e.index}});
            break;
          }
        }
      });
  // instance-1's lease runs out locally during its stall.
  ASSERT_EQ(reason, "local-expiry");
  EXPECT_TRUE(signature.starts_with("x: lease-lost(")) << signature;
  EXPECT_TRUE(signature.ends_with(", local-expiry)")) << signature;
}

// A violation may point at world events: the fault that set the bug up, a mark a workload
// recorded. Such a term is the world event's kind and its node's role, and a mark's name (fixed by
// the code that records it, so the same on every seed); never a fault's words, which name nodes and
// durations. A phase among them is the run's structure and no term.
TEST(SignatureTest, AWorldEventsTermIsItsKindRoleAndAMarksName) {
  properties::RunRequest request;
  request.scenario = "fenced-in-aggregate";
  request.seed = 1;
  std::string fault_detail;
  std::string mark_name;
  std::string signature;
  std::string mark_first;
  properties::run_scenario(
      registry(), request, [&](const sim::World& world, const properties::RunReport&) {
        std::optional<std::uint64_t> fault;
        std::optional<std::uint64_t> mark;
        std::optional<std::uint64_t> phase;
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (!fault && e.world == sim::WorldEventKind::kFaultApplied) {
            fault = e.index;
            fault_detail = std::string(e.detail.str());
          }
          if (!mark && e.world == sim::WorldEventKind::kMark) {
            mark = e.index;
            mark_name = std::string(e.detail.str());
          }
          if (!phase && e.world == sim::WorldEventKind::kPhase) phase = e.index;
        }
        if (!fault || !mark || !phase) return;
        signature =
            violation_signature(world, properties::Violation{"x", "m", {*mark, *phase, *fault}});
        mark_first = violation_signature(world, properties::Violation{"x", "m", {*mark}});
      });
  // instance-1's messages are delayed right after its write was sent; the refusal comes back
  // wrapped in the step's own error.
  ASSERT_EQ(fault_detail.rfind("network-delay instance-1 for ", 0), 0u) << fault_detail;
  ASSERT_EQ(mark_name, "fenced-error-wrapped");
  EXPECT_EQ(signature, "x: fault-applied(instance) -> mark(instance, fenced-error-wrapped)");
  EXPECT_EQ(mark_first, "x: mark(instance, fenced-error-wrapped)");
}

TEST(SignatureTest, AViolationWithoutUsableEventsStillHasOne) {
  properties::Violation empty{"per-key-epochs", "no events", {}};
  properties::Violation bad_index{"per-key-epochs", "an index past the history", {1u << 30}};
  const Signed run = run_signed("kleppmann-fencing", 1, "", {empty, bad_index});
  EXPECT_EQ(run.signature, "");  // a passing run has none
  EXPECT_EQ(run.others[0], "per-key-epochs: (no events)");
  EXPECT_EQ(run.others[1], "per-key-epochs: (no events)");
}

TEST(SignatureTest, HarnessErrorsByKindAndSite) {
  const std::string a = harness_signature(
      "seed 3: fiber 'renew tenant-1' (node 4): check failed: held "
      "(/work/a/runtime/lease.cpp:42)");
  const std::string b = harness_signature(
      "seed 97: fiber 'renew tenant-8' (node 7): check failed: held "
      "(/build/other/runtime/lease.cpp:42)");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a,
            "harness: exception in a simulated fiber: fiber 'renew tenant-#': check failed: held "
            "(lease.cpp:42)");
  // Another line of the same file is another site.
  EXPECT_NE(a, harness_signature("seed 3: fiber 'renew tenant-1' (node 4): check failed: held "
                                 "(/work/a/runtime/lease.cpp:43)"));
  const std::string segv =
      harness_signature("worker killed by signal 11 (Segmentation fault) while running this seed");
  EXPECT_EQ(segv, "harness: worker killed by signal 11 (Segmentation fault)");
  EXPECT_NE(segv, harness_signature("worker killed by signal 6 (Aborted) while running this seed"));
  EXPECT_EQ(harness_signature("worker exceeded --run-timeout (1s) and was killed while running "
                              "this seed"),
            "harness: worker exceeded --run-timeout");
  // A hang is named by the last three event kinds its worker said it recorded.
  EXPECT_EQ(harness_signature("worker exceeded --run-timeout (1s) and was killed while running "
                              "this seed; last events (oldest first): lease-taken, tree-started, "
                              "step-started, step-ended, step-started"),
            "harness: worker exceeded --run-timeout after step-started, step-ended, step-started");
  EXPECT_EQ(harness_signature("worker exceeded --run-timeout (1s) and was killed while running "
                              "this seed; last events (oldest first): take-sent, lease-taken"),
            "harness: worker exceeded --run-timeout after take-sent, lease-taken");
  // A worker that exited by itself: its code, whatever followed it.
  EXPECT_EQ(harness_signature("worker exited with code 5 while running this seed"),
            "harness: worker exited with code 5");
  EXPECT_NE(harness_signature("worker exited with code 5 while running this seed"),
            harness_signature("worker exited with code 1 while running this seed"));
  EXPECT_EQ(harness_signature("an exception escaped the harness: boom at step 12"),
            harness_signature("an exception escaped the harness: boom at step 7"));
}

TEST(SignatureTest, LivenessByWhatTheRunWasStuckOn) {
  const std::string deadlock = "deadlock: at 5 ns:\n  fiber 'tree t-1/o-1' (node 3, incarnation 1)";
  const std::string a =
      liveness_signature(deadlock, {"branch (instance) waits on the lease taken back after a yield",
                                    "tree (instance) waits on branches to end"});
  EXPECT_EQ(a,
            "liveness: deadlock: branch (instance) waits on the lease taken back after a yield; "
            "tree (instance) waits on branches to end");
  // Another wait is another bug, whatever the kind of stall.
  EXPECT_NE(a, liveness_signature(deadlock, {"tree (instance) waits on write payments reply"}));
  const std::string limit = "trees not completed when the run ended (time-limit)\n  tree t/o: x";
  EXPECT_EQ(liveness_signature(limit, {"tree: placement pending, lease held, last step-started"}),
            "liveness: time-limit: tree: placement pending, lease held, last step-started");
  EXPECT_NE(liveness_signature(limit, {"tree: placement pending, lease released"}),
            liveness_signature(limit, {"tree: placement pending, lease held"}));
  // Ids and counts never reach it: digits become '#'.
  EXPECT_EQ(liveness_signature(limit, {"tree: 3 steps"}), "liveness: time-limit: tree: # steps");
  // Without terms (a record from before them), the kind of stall alone.
  EXPECT_EQ(liveness_signature(deadlock, {}), "liveness: deadlock");
}

TEST(SignatureTest, LivenessByKindOfStall) {
  EXPECT_EQ(liveness_signature("deadlock: fiber 'root 3' waits on 'child 9'"),
            "liveness: deadlock");
  EXPECT_EQ(liveness_signature("trees not completed when the run ended (time-limit)"),
            "liveness: trees not completed when the run ended (time-limit)");
}

TEST(SignatureTest, RecordsWithoutASignatureStillGroup) {
  RunRecord record;
  record.status = "violation";
  record.first_violation = RecordedViolation{"sink-monotonicity", "m"};
  EXPECT_EQ(record_signature(record), "sink-monotonicity: (no signature)");
  record.signature = "sink-monotonicity: x";
  EXPECT_EQ(record_signature(record), "sink-monotonicity: x");
  RunRecord nondeterministic;
  nondeterministic.status = "pass";
  nondeterministic.history_hash = "00000000000000aa";
  EXPECT_EQ(record_signature(nondeterministic), "");
  nondeterministic.rerun_history_hash = "00000000000000bb";
  EXPECT_TRUE(record_signature(nondeterministic).starts_with("replay: "))
      << record_signature(nondeterministic);
  EXPECT_EQ(signature_id("a").size(), 8u);
  EXPECT_NE(signature_id("a"), signature_id("b"));
}

}  // namespace
}  // namespace fencesim::reports::signature_test
