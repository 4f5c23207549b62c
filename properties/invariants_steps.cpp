// A stale step never succeeds. A step ends "ok" only if its holder still held the token when it
// sent the step's checkpoint, and the store committed that checkpoint before any later take of the
// key; a step ending after its holder lost the token ends with an execution.lease-lost code.
#include <fmt/format.h>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

std::string_view stale_name() {
  return StaleStepNeverSucceeds{}.name();
}

void judge_ok(const StepRun& run, const StepHistory& steps, std::vector<Violation>& out) {
  const std::uint64_t ended = *run.ended;
  // Strict (DESIGN invariant 6): a loss at the holder before its outcome was known committed,
  // even while the checkpoint was in flight, means the step cannot report success.
  if (const TokenLoss* loss = loss_before(steps, run.held, ended)) {
    out.push_back(violation(stale_name(),
                            fmt::format("{} ended ok, though its holder lost the token ({}) "
                                        "before the step ended",
                                        describe_run(run), runtime::to_string(loss->kind)),
                            {run.started, loss->index, ended}));
    return;
  }
  if (!run.store_committed) {
    out.push_back(violation(
        stale_name(),
        fmt::format("{} ended ok, but the store never committed its checkpoint", describe_run(run)),
        {run.started, ended}));
    return;
  }
  const std::optional<std::uint64_t> grant =
      first_higher_grant(steps, run.held.key, run.held.token);
  if (grant && *grant < *run.store_committed) {
    out.push_back(violation(stale_name(),
                            fmt::format("{} ended ok, though a later token was granted before its "
                                        "checkpoint committed",
                                        describe_run(run)),
                            {run.started, *grant, *run.store_committed, ended}));
  }
}

void judge_failed(const StepRun& run, const StepHistory& steps, std::vector<Violation>& out) {
  const TokenLoss* loss = loss_before(steps, run.held, *run.ended);
  if (loss == nullptr) return;
  if (run.outcome.starts_with(runtime::ExecutionLeaseLostError::kCode)) return;
  out.push_back(
      violation(stale_name(),
                fmt::format("{} ended with '{}' after its holder lost the token ({}): "
                            "a stale step ends with {}",
                            describe_run(run), run.outcome, runtime::to_string(loss->kind),
                            runtime::ExecutionLeaseLostError::kCode),
                {run.started, loss->index, *run.ended}));
}

}  // namespace

void check_stale_step_never_succeeds(const Events& events, std::vector<Violation>& out) {
  const StepHistory steps = read_steps(events);
  for (const StepRun& run : steps.runs) {
    if (!run.ended) continue;
    if (run.outcome == "ok"sv) {
      judge_ok(run, steps, out);
    } else {
      judge_failed(run, steps, out);
    }
  }
}

void StaleStepNeverSucceeds::check(const sim::World& world, std::vector<Violation>& out) const {
  check_stale_step_never_succeeds(world.history().events(), out);
}

}  // namespace fencesim::properties
