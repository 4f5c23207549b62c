// Classification: a refusal is a hand-over error, found anywhere in a cause chain or aggregate and
// checked before the signal's reason. From the history: a step that met a refusal, or whose token
// was first lost to a fence, ends fenced; a pass in which any of its steps ended fenced or any of
// its writes or checkpoints was refused is classified fenced.
#include <fmt/format.h>

#include "properties/error_codes.h"
#include "properties/history_support.h"
#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

using runtime::EventKind;

namespace {

std::string_view classification_name() {
  return Classification{}.name();
}

void judge_step(const StepRun& run, const StepHistory& steps, std::vector<Violation>& out) {
  if (run.outcome == codes::kFenced) return;
  if (run.own_refusal) {
    out.push_back(violation(classification_name(),
                            fmt::format("{} met a refusal but ended with '{}', not {}",
                                        describe_run(run), run.outcome, codes::kFenced),
                            {run.started, *run.own_refusal, *run.ended}));
    return;
  }
  // An "ok" step committed before the fence: stale-step-never-succeeds judges those.
  if (run.outcome == "ok"sv) return;
  const TokenLoss* loss = loss_before(steps, run.held, *run.ended);
  if (loss == nullptr || loss->kind != EventKind::kLeaseLost || loss->detail != "fenced") return;
  out.push_back(violation(classification_name(),
                          fmt::format("{} ended with '{}' after its token was fenced: the fence "
                                      "comes before the abort reason",
                                      describe_run(run), run.outcome),
                          {run.started, loss->index, *run.ended}));
}

// A holder's pass over a tree, and the first sign that it met a fence. A pass takes its first
// token at its start and later ones when it retakes after a yield; tokens are per-key epochs, so a
// fence sign of an earlier token is the earlier pass's (a refusal that landed after that pass was
// decided: its write was left in flight at the abort), never this one's.
struct Pass {
  std::uint64_t started = 0;
  std::uint64_t first_token = 0;
  std::optional<std::uint64_t> fenced_at;
};

void judge_passes(const Events& events, std::vector<Violation>& out) {
  std::map<std::pair<sim::Name, sim::NameKey>, Pass> passes;
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    // Only these kinds change a pass or are judged: the key (hostile names run to hundreds of
    // bytes) is copied for them alone.
    if (r->kind != EventKind::kTreeStarted && r->kind != EventKind::kStepEnded &&
        r->kind != EventKind::kErrorClassified && !is_fenced_refusal(*r)) {
      continue;
    }
    const auto key = std::make_pair(r->holder, r->key);
    if (r->kind == EventKind::kTreeStarted) {
      passes[key] = Pass{e.index, r->token, std::nullopt};
      continue;
    }
    auto it = passes.find(key);
    if (it == passes.end()) continue;
    Pass& pass = it->second;
    const bool fenced_step = r->kind == EventKind::kStepEnded && r->detail == codes::kFenced;
    if ((fenced_step || is_fenced_refusal(*r)) && r->token >= pass.first_token && !pass.fenced_at) {
      pass.fenced_at = e.index;
    }
    if (r->kind != EventKind::kErrorClassified || !pass.fenced_at || r->detail == codes::kFenced)
      continue;
    out.push_back(
        violation(classification_name(),
                  fmt::format("the pass of {} over {} met a fence but was classified "
                              "'{}', not {}",
                              r->holder, runtime::to_string(r->key), r->detail, codes::kFenced),
                  {pass.started, *pass.fenced_at, e.index}));
  }
}

}  // namespace

void check_classification(const Events& events, std::vector<Violation>& out) {
  const StepHistory steps = read_steps(events);
  for (const StepRun& run : steps.runs) {
    if (run.ended) judge_step(run, steps, out);
  }
  judge_passes(events, out);
}

void Classification::check(const sim::World& world, std::vector<Violation>& out) const {
  check_classification(world.history().events(), out);
}

}  // namespace fencesim::properties
