// decided-as-loss (properties/invariants_after_loss.h): a failure decided after its token was lost
// is the loss, whatever the body failed with.
#include <fmt/format.h>

#include <map>
#include <optional>

#include "properties/error_codes.h"
#include "properties/history_support.h"
#include "properties/invariants_after_loss.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// How token t was first lost at its holder.
struct FirstLoss {
  std::uint64_t index = 0;
  bool fence = false;         // a refusal naming a later token, or the holder's "fenced" loss
  bool after_cancel = false;  // the holder had learned of the tree's cancel in this pass before
};

bool is_fence(const sim::RuntimeRecord& r) {
  return is_fenced_refusal(r) || (r.kind == EventKind::kLeaseLost && r.detail == "fenced");
}

std::string_view what_decided(EventKind kind) {
  switch (kind) {
    case EventKind::kStepEnded:
      return "its step ended";
    case EventKind::kErrorClassified:
      return "its pass was classified";
    default:
      return "its fenced withdrawal ended";
  }
}

}  // namespace

void check_decided_as_loss(const std::vector<sim::HistoryEvent>& events,
                           std::vector<Violation>& out) {
  const std::string_view name = DecidedAsLoss{}.name();
  std::map<HeldToken, FirstLoss> lost;
  // Per holder and tree: the holder learned of the tree's cancel during its current pass.
  std::map<std::pair<sim::Name, sim::NameKey>, bool> cancel_seen;
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kTreeStarted) {
      cancel_seen.erase({r->holder, r->key});
      continue;
    }
    if (r->kind == EventKind::kCancelSeen) {
      cancel_seen[{r->holder, r->key}] = true;
      continue;
    }
    if (is_known_loss(*r)) {
      const bool after_cancel = cancel_seen.contains({r->holder, r->key});
      lost.try_emplace(held_token(*r), FirstLoss{e.index, is_fence(*r), after_cancel});
      continue;
    }
    const bool step = r->kind == EventKind::kStepEnded;
    const bool pass = r->kind == EventKind::kErrorClassified;
    const bool withdrawal =
        r->kind == EventKind::kWithdrawalEnded && r->token != runtime::kTokenNone;
    if (!step && !pass && !withdrawal) continue;
    const std::string_view code = r->detail;
    if (code == "ok") continue;  // a success after a loss: stale-step-never-succeeds judges those
    auto it = lost.find(held_token(*r));
    if (it == lost.end()) continue;
    const FirstLoss& loss = it->second;
    std::string_view expected;
    if (withdrawal && loss.after_cancel &&
        (code == codes::kCancelled || codes::is_lease_loss(code))) {
      continue;  // its signal's reason was the cancel (or the loss): either decides it
    }
    if (withdrawal && loss.fence && !loss.after_cancel) {
      if (code == codes::kFenced) continue;
      expected = codes::kFenced;
    } else {
      if (codes::is_lease_loss(code)) continue;
      expected = "execution.lease-lost...";
    }
    const sim::HistoryEvent& cause = events[loss.index];
    out.push_back(violation(
        name,
        fmt::format("{}: {} under token {} of {} (step '{}') with '{}', after {} ('{}') of that "
                    "token had reached it: expected {}",
                    r->holder, what_decided(r->kind), r->token, runtime::to_string(r->key), r->step,
                    code, runtime::to_string(cause.runtime.kind),
                    std::string_view(cause.runtime.detail), expected),
        {loss.index, e.index}));
  }
}

void DecidedAsLoss::check(const sim::World& world, std::vector<Violation>& out) const {
  check_decided_as_loss(world.history().events(), out);
}

}  // namespace fencesim::properties
