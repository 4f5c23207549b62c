// Ids and names made of the characters URI encoders disagree on. ADR-0023 spells a scope key with
// encodeURIComponent, which keeps ! ~ * ' ( ) as they are; RFC 3986 quoters escape ! * ' ( ), and
// older ones escape ~ as well. The nightly mix's hostile names are drawn from colons, percents,
// slashes, spaces, non-ASCII, NUL and long runs, never these marks, so an encoder that escaped one
// of them (red team 25d's 11: '~' written as %7E) passed every plain sweep. Here every lease key
// holds them: the root's tenant and execution id, a ParentInstance branch's and an AnyInstance
// child's names (a child's execution id spells its parent's id and its path), and each key is
// taken by two holders in turn (holder 1 stalls past its lease mid-write), so scope-key-injective
// compares every grant's scope key with its own reference spelling, and the sink sees the key's
// tokens.
#include <string_view>

#include "runtime/placement_queue.h"
#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ChildPlacement;
using runtime::GroupItem;
using runtime::kMillisecond;
using runtime::kSecond;
using runtime::Workflow;

namespace {

bool holds_every_mark(std::string_view text) {
  for (const char mark : std::string_view("!~*'()")) {
    if (text.find(mark) == std::string_view::npos) return false;
  }
  return true;
}

// `step`, first marking `mark` when its fence's lease key holds every mark in both its tenant and
// its execution id, and (`child`) is an AnyInstance child's own key: the scenario's claims that
// the keys it was written for were taken at all (red team 32b: a root id without its '~', a child
// placed as ParentInstance, which runs under the root's key, passed every check).
runtime::StepItem marking_its_key(sim::World& world, const runtime::StepItem& step,
                                  std::string mark, bool child) {
  return with_body(step, [&world, mark = std::move(mark), child,
                          body = step.body](runtime::ExecutionContext& ctx) {
    const runtime::ExecutionFence fence = ctx.fence();
    const std::string_view execution = fence.lease_execution_id();
    if (holds_every_mark(fence.tenant_id()) && holds_every_mark(execution) &&
        execution.starts_with(runtime::kChildExecutionPrefix) == child) {
      world.mark(ctx, mark);
    }
    body(ctx);
  });
}

}  // namespace

static void register_uri_marks_in_ids(ScenarioRegistry& registry) {
  ScenarioBuilder("uri-marks-in-ids")
      .describe(
          "every lease key holds the marks encodeURIComponent keeps and other URI encoders "
          "escape (! ~ * ' ( )); holder 1 stalls past its lease mid-write and holder 2 takes "
          "over: each grant's scope key is the reference spelling of its key")
      .safety_phase(120 * kSecond)
      .sink("payments")
      .instance("instance-1")
      // Holder 2 starts later, so that holder 1 takes the root first.
      .instance("instance-2", 5 * kSecond)
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{
            "refund~'1'",
            {marking_its_key(world, write_step(world, "pay(back)!", kSecond, "payments", "refund"),
                             "every-uri-mark-in-a-child-key", true)}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{"audit*(2)",
                        {write_step(world, "count~it", 2 * kSecond, "payments", "audit")}};
      })
      .workflow([](sim::World& world, sim::Rng&) {
        return Workflow{
            "order",
            {marking_its_key(world,
                             write_step(world, "charge~1", 2 * kSecond, "payments", "charge"),
                             "every-uri-mark-in-the-root-key", false),
             GroupItem{"fan-out(*)",
                       {{"refund!'~'", ChildPlacement::kAnyInstance, "refund~'1'"},
                        {"audit(!)", ChildPlacement::kParentInstance, "audit*(2)"}}},
             write_step(world, "ship*", 100 * kMillisecond, "payments", "ship")}};
      })
      .tree("acme!~*'()", "order~(1)*'!", "order")
      .fault(stall("instance-1")
                 .after(runtime::EventKind::kWriteSent)
                 .lasting_between(35 * kSecond, 60 * kSecond))
      // measured over seeds 1..200: takeover-mid-step 100%, stale-write-refused 100%;
      // every-uri-mark-in-the-root-key and every-uri-mark-in-a-child-key 100% of 400
      .marks({"takeover-mid-step >= 95%", "stale-write-refused >= 95%",
              "every-uri-mark-in-the-root-key >= 95%", "every-uri-mark-in-a-child-key >= 95%"})
      .add_to(registry);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kUriMarksInIdsRegistration(register_uri_marks_in_ids);

}  // namespace fencesim::scenarios
