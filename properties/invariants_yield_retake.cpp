// yield-lost-only-to-a-taker (properties/invariants_yield_retake.h).
#include "properties/invariants_yield_retake.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "properties/history_support.h"
#include "runtime/errors.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

using runtime::EventKind;

namespace {

using TreeAtHolder = std::pair<sim::Name, sim::NameKey>;

// A pass's lease given back and not yet taken again.
struct Yielded {
  runtime::Token token = runtime::kTokenNone;
  std::uint64_t released = 0;  // the holder's kLeaseReleased
  // The store failed the holder's retake with an error: the key's epochs are spent (ADR-0023:
  // past 2^53-1 an error, never a grant), so no token can be taken again, by anyone.
  bool spent = false;
};

bool lease_lost(std::string_view code) {
  return code.starts_with(runtime::ExecutionLeaseLostError::kCode);
}

}  // namespace

void check_yield_lost_only_to_a_taker(const Events& events, std::vector<Violation>& out) {
  std::map<TreeAtHolder, Yielded> yielded;
  // The latest token the store granted of each key: a pass lost to a taker when it is later than
  // the token the pass gave back. A grant before the yield counts too: a store whose clock stepped
  // forward (outside the assumptions) ends a lease early, and another instance takes the key while
  // its holder still believes it holds it; the holder's yield then gives back a token already
  // taken over, and its retake is refused by that taker (red team 31a, bug 31's run: token 6
  // granted at #4789, token 5 released at #4794).
  std::map<sim::NameKey, runtime::Token> latest_grant;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store && !e.store->failed &&
        e.store->op == sim::StoreOp::kTake && e.store->outcome == "taken"sv && e.store->lease) {
      runtime::Token& latest = latest_grant[e.store->key];
      latest = std::max(latest, e.store->lease->token);
      continue;
    }
    if (const sim::StoreCall* take = failed_take(e)) {
      auto it = yielded.find({take->holder, take->key});
      if (it != yielded.end()) it->second.spent = true;
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    const TreeAtHolder tree{r->holder, r->key};
    switch (r->kind) {
      case EventKind::kTreeStarted:
      case EventKind::kLeaseTaken:
        yielded.erase(tree);
        break;
      case EventKind::kLeaseReleased:
        yielded[tree] = Yielded{r->token, e.index, false};
        break;
      case EventKind::kErrorClassified: {
        auto it = yielded.find(tree);
        if (it == yielded.end()) break;
        const Yielded y = it->second;
        yielded.erase(it);
        const auto granted = latest_grant.find(r->key);
        const bool taken = granted != latest_grant.end() && granted->second > y.token;
        if (!lease_lost(r->detail) || taken || y.spent) break;
        out.push_back(violation(
            YieldLostOnlyToATaker{}.name(),
            fmt::format("{}'s pass of {} ended '{}' after it gave token {} back, before taking "
                        "the lease again, though the lease store granted no later token of the "
                        "key meanwhile: nobody took the tree",
                        r->holder, runtime::to_string(r->key), std::string_view(r->detail),
                        y.token),
            {y.released, e.index}));
        break;
      }
      default:
        break;
    }
  }
}

void YieldLostOnlyToATaker::check(const sim::World& world, std::vector<Violation>& out) const {
  check_yield_lost_only_to_a_taker(world.history().events(), out);
}

}  // namespace fencesim::properties
