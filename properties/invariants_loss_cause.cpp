// loss-after-its-cause (properties/invariants_loss_cause.h).
#include "properties/invariants_loss_cause.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

constexpr std::string_view kRenewRefusedLoss = "renew-refused:";
constexpr std::string_view kCheckpointRefusedLoss = "checkpoint-refused";

// What refusals of one token reached its holder so far.
struct RefusalsSeenOfToken {
  std::set<std::string, std::less<>> renewals;  // the kRenewRefused details (why)
  bool checkpoint = false;                      // a kCheckpointRefused
};

}  // namespace

void check_loss_after_its_cause(const Events& events, std::vector<Violation>& out) {
  // Only looked up: hashed (KeyHash).
  std::unordered_map<HeldToken, RefusalsSeenOfToken, KeyHash> seen;
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    switch (r->kind) {
      case EventKind::kRenewRefused:
        seen[held_token(*r)].renewals.emplace(std::string_view(r->detail));
        break;
      case EventKind::kCheckpointRefused:
        seen[held_token(*r)].checkpoint = true;
        break;
      case EventKind::kLeaseLost: {
        const std::string_view detail(r->detail);
        std::string cause;
        bool reached = true;
        if (detail.starts_with(kRenewRefusedLoss)) {
          const std::string_view why = detail.substr(kRenewRefusedLoss.size());
          auto it = seen.find(held_token(*r));
          reached = it != seen.end() && it->second.renewals.contains(why);
          cause = fmt::format("a renew-refused ('{}')", why);
        } else if (detail == kCheckpointRefusedLoss) {
          auto it = seen.find(held_token(*r));
          reached = it != seen.end() && it->second.checkpoint;
          cause = "a checkpoint-refused";
        }
        if (reached) break;
        out.push_back(violation(
            LossAfterItsCause{}.name(),
            fmt::format("{} reported token {} of {} lost ('{}') before {} of that token had "
                        "reached it: a loss is reported after the refusal that caused it",
                        r->holder, r->token, runtime::to_string(r->key), detail, cause),
            {e.index}));
        break;
      }
      default:
        break;
    }
  }
}

void LossAfterItsCause::check(const sim::World& world, std::vector<Violation>& out) const {
  check_loss_after_its_cause(world.history().events(), out);
}

}  // namespace fencesim::properties
