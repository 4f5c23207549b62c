// Specs that declare their own topology: the double-takeover story runs as written (both stale
// holders' writes reach the sink after the third holder's and are refused, holder 1's first), a
// topology with every placement and step kind passes, and every mistake names its line and key.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/run.h"
#include "scenarios/spec.h"
#include "scenarios/tests/built_world.h"
#include "scenarios/workload.h"
#include "tests/paths.h"

namespace fencesim::scenarios::spec_topology_test {
namespace {

using runtime::EventKind;

TEST(SpecTopology, DoubleTakeoverRefusesBothStaleHoldersInOrder) {
  ScenarioRegistry registry = builtin_scenarios();
  const std::string name =
      register_spec_file(registry, fencesim::testing::source_dir() + "/specs/double-takeover.toml");
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::vector<runtime::Token> refused;  // tokens refused at the sink, in order
    bool applied_3_first = false;
    const properties::RunReport report = properties::run_scenario(
        registry, properties::RunRequest{name, seed},
        [&](const sim::World& world, const properties::RunReport&) {
          for (const sim::HistoryEvent& e : world.history().events()) {
            if (e.world != sim::WorldEventKind::kRuntime) continue;
            if (e.runtime.kind == EventKind::kSinkApplied && e.runtime.token == 3) {
              applied_3_first = refused.empty();
            }
            if (e.runtime.kind == EventKind::kSinkRefused) refused.push_back(e.runtime.token);
          }
        });
    ASSERT_EQ(report.status, properties::RunStatus::kPass) << "seed " << seed << report.detail;
    EXPECT_TRUE(applied_3_first) << "seed " << seed;
    EXPECT_EQ(refused, (std::vector<runtime::Token>{1, 2})) << "seed " << seed;
  }
}

const std::string kEveryPlacement = R"(
name = "every-placement"
[[instance]]
name = "a"
[[instance]]
name = "b"
start = "2s"
[[sink]]
name = "payments"
[[sink]]
name = "ledger"
[[workflow]]
name = "leaf"
steps = [{ kind = "write", name = "post", duration = "1s", sink = "ledger" }]
[[workflow]]
name = "root"
steps = [
  { kind = "busy-write", name = "charge", duration = "1s", sink = "payments", other_sink = "ledger" },
  { kind = "confirm-call", name = "mail", duration = "200ms" },
  { kind = "group", name = "kids", children = [
      { name = "here", placement = "parent-instance", workflow = "leaf" },
      { name = "inline", placement = "this-workflow", workflow = "leaf" },
      { name = "there", placement = "any-instance", workflow = "leaf" },
      { name = "order", placement = "any-instance", workflow = "order" } ] },
]
[[tree]]
tenant = "t:1/%"
execution = "order 1"
workflow = "root"
[[tree]]
tenant = "t"
execution = "o"
workflow = "order"
at = "3s"
[[fault]]
kind = "stall"
node = "a"
after = "write-sent"
lasting = "40s"
)";

TEST(SpecTopology, EveryPlacementAndStepKindRuns) {
  ScenarioRegistry registry = builtin_scenarios();
  ASSERT_EQ(register_spec_text(registry, kEveryPlacement, "every.toml"), "every-placement");
  std::map<std::string, std::uint64_t> marks;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const properties::RunReport report =
        properties::run_scenario(registry, properties::RunRequest{"every-placement", seed});
    std::string why = report.detail;
    for (const auto& v : report.violations) why += "; " + v.invariant + ": " + v.message;
    ASSERT_EQ(report.status, properties::RunStatus::kPass) << "seed " << seed << why;
    for (const auto& [mark, count] : report.marks) marks[mark] += count;
  }
  EXPECT_GT(marks["second-effect-written"], 0u);
  EXPECT_GT(marks["stale-write-refused"] + marks["rerun-deduplicated"], 0u);
}

// A write step's effect and payload are two keys: the effect names what the workload means to
// have (its intent), the payload is what reaches the sink after the effect's identity.
TEST(SpecTopology, AWriteStepsEffectAndPayloadAreEachTheirOwnKey) {
  ScenarioRegistry registry = builtin_scenarios();
  const std::string name = register_spec_text(registry, R"(
name = "effect-and-payload"
[[instance]]
name = "a"
[[sink]]
name = "payments"
[[workflow]]
name = "pay"
steps = [{ kind = "write", name = "charge", sink = "payments", effect = "debit", payload = "42 EUR" }]
[[tree]]
tenant = "t"
execution = "o"
workflow = "pay"
)",
                                              "effect-and-payload.toml");
  std::vector<std::pair<std::string, std::string>> intents;  // (effect, payload after identity)
  const properties::RunReport report = properties::run_scenario(
      registry, properties::RunRequest{name, 1},
      [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world != sim::WorldEventKind::kIntent) continue;
          const std::string& sent = e.detail.str();
          const std::optional<EffectIdentity> identity = parse_effect_identity(sent);
          ASSERT_TRUE(identity.has_value()) << sent;
          intents.emplace_back(identity->effect, sent.substr(identity->length));
        }
      });
  ASSERT_EQ(report.status, properties::RunStatus::kPass) << report.detail;
  EXPECT_EQ(intents, (std::vector<std::pair<std::string, std::string>>{{"debit", "42 EUR"}}));
}

// A spec's tree runs under the key it wrote: its tenant as the tenant, its execution as the
// execution id (red team 34a: TreeSpec's fields declared in the other order swapped the two in
// every spec tree, and every spec still passed).
TEST(SpecTopology, ATreeRunsUnderTheTenantAndExecutionItNames) {
  ScenarioRegistry registry = builtin_scenarios();
  ASSERT_EQ(register_spec_text(registry, kEveryPlacement, "every.toml"), "every-placement");
  std::set<std::pair<std::string, std::string>> started;  // roots' (tenant, execution)
  const properties::RunReport report = properties::run_scenario(
      registry, properties::RunRequest{"every-placement", 1},
      [&](const sim::World& world, const properties::RunReport&) {
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (e.world == sim::WorldEventKind::kRuntime &&
              e.runtime.kind == EventKind::kTreeStarted) {
            started.emplace(e.runtime.key.tenant_id.str(), e.runtime.key.lease_execution_id.str());
          }
        }
      });
  ASSERT_EQ(report.status, properties::RunStatus::kPass) << report.detail;
  EXPECT_TRUE(started.contains({"t:1/%", "order 1"})) << started.size() << " trees started";
  EXPECT_TRUE(started.contains({"t", "o"}));
  EXPECT_FALSE(started.contains({"order 1", "t:1/%"}));
}

// Trees are told apart by their whole key: two of one tenant and workflow under two executions
// are two trees, and each runs; one key written twice is refused (EveryMistakeNamesItsLineAndKey).
TEST(SpecTopology, TwoTreesOfOneTenantAndWorkflowUnderTwoExecutionsAreTwoTrees) {
  const std::string text =
      "name = \"twins\"\n[[instance]]\nname = \"a\"\n[[sink]]\nname = \"s\"\n"
      "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\" }]\n"
      "[[tree]]\ntenant = \"t\"\nexecution = \"e-1\"\nworkflow = \"w\"\n"
      "[[tree]]\ntenant = \"t\"\nexecution = \"e-2\"\nworkflow = \"w\"\n";
  ScenarioRegistry registry;
  ASSERT_EQ(register_spec_text(registry, text, "twins.toml"), "twins");
  const auto world = testing::built_world(*registry.find("twins"), 1);
  EXPECT_EQ(world->submitted(), (std::vector<runtime::LeaseKey>{{"t", "e-1"}, {"t", "e-2"}}));
}

// Each placement a spec writes is the runtime's placement of that name: a this-workflow child
// runs in its parent's pass, not as a branch of its own (parent-instance).
TEST(SpecTopology, EachPlacementIsTheOneItNames) {
  ScenarioRegistry registry;
  const std::string name = register_spec_text(registry, kEveryPlacement, "every-placement.toml");
  const auto world = testing::built_world(*registry.find(name), 1);
  std::vector<std::pair<std::string, runtime::ChildPlacement>> children;
  for (const runtime::WorkflowItem& item : world->workflows().get("root").items) {
    if (const auto* group = std::get_if<runtime::GroupItem>(&item)) {
      for (const runtime::ChildItem& child : group->children) {
        children.emplace_back(child.name, child.placement);
      }
    }
  }
  EXPECT_EQ(children, (std::vector<std::pair<std::string, runtime::ChildPlacement>>{
                          {"here", runtime::ChildPlacement::kParentInstance},
                          {"inline", runtime::ChildPlacement::kThisWorkflow},
                          {"there", runtime::ChildPlacement::kAnyInstance},
                          {"order", runtime::ChildPlacement::kAnyInstance}}));
}

// A tree's `cancel` is a client's cancel (#360) at a time drawn per run, counted from the tree's
// submission: sent once in the range on every seed, at times that differ between seeds, and the
// tree, still running then, ends cancelled; a tree without one is never cancelled, and a fixed
// `cancel` is sent at exactly that time.
TEST(SpecTopology, ATreesCancelIsSentAtATimeDrawnAfterItsSubmission) {
  const std::string text =
      "name = \"cancels\"\n[[instance]]\nname = \"a\"\n"
      "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\", duration = \"30s\" "
      "}]\n"
      "[[tree]]\ntenant = \"t\"\nexecution = \"drawn\"\nworkflow = \"w\"\nat = \"2s\"\n"
      "cancel = [\"3s\", \"9s\"]\n"
      "[[tree]]\ntenant = \"t\"\nexecution = \"kept\"\nworkflow = \"w\"\n"
      "[[tree]]\ntenant = \"t\"\nexecution = \"fixed\"\nworkflow = \"w\"\nat = \"1s\"\n"
      "cancel = \"4s\"\n";
  ScenarioRegistry registry;
  ASSERT_EQ(register_spec_text(registry, text, "cancels.toml"), "cancels");
  std::set<std::int64_t> drawn_times;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::map<std::string, std::vector<std::int64_t>> sent;  // execution -> times of "sent"
    std::set<std::string> cancelled;
    const properties::RunReport report = properties::run_scenario(
        registry, properties::RunRequest{"cancels", seed},
        [&](const sim::World& world, const properties::RunReport&) {
          for (const sim::HistoryEvent& e : world.history().events()) {
            if (e.world == sim::WorldEventKind::kCancelRequest && e.runtime.detail == "sent") {
              sent[e.runtime.key.lease_execution_id.str()].push_back(e.time_ns);
            }
            if (e.world == sim::WorldEventKind::kRuntime &&
                e.runtime.kind == EventKind::kTreeCancelled) {
              cancelled.insert(e.runtime.key.lease_execution_id.str());
            }
          }
        });
    ASSERT_EQ(report.status, properties::RunStatus::kPass) << report.detail;
    ASSERT_EQ(sent["drawn"].size(), 1U) << "seed " << seed;
    EXPECT_GE(sent["drawn"][0], 5 * runtime::kSecond) << "seed " << seed;
    EXPECT_LE(sent["drawn"][0], 11 * runtime::kSecond) << "seed " << seed;
    drawn_times.insert(sent["drawn"][0]);
    EXPECT_EQ(sent["fixed"], std::vector<std::int64_t>{5 * runtime::kSecond}) << "seed " << seed;
    EXPECT_FALSE(sent.contains("kept")) << "seed " << seed;
    EXPECT_EQ(cancelled, (std::set<std::string>{"drawn", "fixed"})) << "seed " << seed;
  }
  EXPECT_GE(drawn_times.size(), 3U) << "the cancel's time is drawn per seed";
}

TEST(SpecTopology, EveryMistakeNamesItsLineAndKey) {
  const std::string head = "name = \"bad\"\n";
  const std::string node = "[[instance]]\nname = \"a\"\n[[sink]]\nname = \"s\"\n";
  const std::string tree = "[[tree]]\ntenant = \"t\"\nexecution = \"e\"\nworkflow = \"w\"\n";
  struct Bad {
    std::string text;
    std::string error;
  };
  const std::vector<Bad> cases{
      {head + "workload = \"kleppmann-fencing\"\n" + node + tree,
       "bad.toml:2: workload: a spec runs a workload or declares its own topology ([[instance]], "
       "[[sink]], [[workflow]], [[tree]]), not both"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"sleep\", name = \"x\" }]\n" +
           tree,
       "bad.toml:8: [[workflow]].steps.kind: unknown step kind 'sleep' (known: work, write, "
       "busy-write, confirm-call, group)"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"write\", name = \"x\", " +
           "sink = \"t\" }]\n" + tree,
       "bad.toml:8: [[workflow]].steps.sink: unknown sink 't' (declare it as [[sink]])"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\", " +
           "sink = \"s\" }]\n" + tree,
       "bad.toml:8: [[workflow]].steps.sink: not used by a 'work' step (its keys: kind, name, "
       "duration)"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"group\", name = \"g\", " +
           "children = [{ name = \"c\", placement = \"any-instance\", workflow = \"w\" }] }]\n" +
           tree,
       "bad.toml:6: [[workflow]]: workflow 'w' contains itself"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"group\", name = \"g\", " +
           "children = [{ name = \"c\", placement = \"anywhere\", workflow = \"w\" }] }]\n" + tree,
       "bad.toml:8: [[workflow]].steps.children.placement: 'anywhere' is not parent-instance, "
       "this-workflow or any-instance"},
      // Issue 29 item 5: siblings of one name share a path; told with their line before the
      // runtime's registry would refuse the workflow.
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\" }, " +
           "{ kind = \"work\", name = \"x\" }]\n" + tree,
       "bad.toml:8: [[workflow]].steps.name: two steps or groups of workflow 'w' are named 'x': "
       "siblings share a path (a checkpoint, idempotency keys) unless named apart"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"s\" }]\n" +
           "[[workflow]]\nname = \"p\"\nsteps = [{ kind = \"group\", name = \"g\", children = " +
           "[{ name = \"c\", placement = \"any-instance\", workflow = \"w\" }, " +
           "{ name = \"c\", placement = \"parent-instance\", workflow = \"w\" }] }]\n" +
           "[[tree]]\ntenant = \"t\"\nexecution = \"e\"\nworkflow = \"p\"\n",
       "bad.toml:11: [[workflow]].steps.children.name: two children of group 'g' are named 'c': "
       "siblings share a path (and an AnyInstance child's lease key) unless named apart"},
      {head + node + tree,
       "bad.toml:9: [[tree]].workflow: unknown workflow 'w' (declare it as "
       "[[workflow]], or use one registered: order)"},
      // Two trees of one key would share one lease: one root, run as two.
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\" }]\n" +
           tree + tree,
       "bad.toml:13: [[tree]]: two trees with the same tenant and execution"},
      {head + "[[sink]]\nname = \"s\"\n" + tree,
       "bad.toml:1: [[instance]]: a topology needs an instance"},
      {head + node + "[[instance]]\nname = \"s\"\n" + tree,
       "bad.toml:7: [[instance]].name: 's' is empty or names another node"},
      {head + node, "bad.toml:1: [[tree]]: a topology needs a tree"},
      {head + node + "[[workflow]]\nname = \"w\"\nsteps = [{ kind = \"work\", name = \"x\" }]\n" +
           tree + "cancel = [\"9s\", \"3s\"]\n",
       "bad.toml:13: [[tree]].cancel: a range must be [low, high] with low <= high"},
  };
  for (const Bad& bad : cases) {
    ScenarioRegistry registry = builtin_scenarios();
    try {
      register_spec_text(registry, bad.text, "bad.toml");
      ADD_FAILURE() << "no error for:\n" << bad.text;
    } catch (const SpecError& error) {
      // The mistake each case is about comes first; what it breaks further on may follow
      // (the spec is checked whole, docs/specs.md).
      EXPECT_EQ(error.all().front(), bad.error) << bad.text;
      EXPECT_TRUE(std::string(error.what()).starts_with(bad.error)) << error.what();
    }
    EXPECT_EQ(registry.find("bad"), nullptr);
  }
}

}  // namespace
}  // namespace fencesim::scenarios::spec_topology_test
