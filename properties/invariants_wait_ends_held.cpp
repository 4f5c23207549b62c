// remote-wait-ends-held (properties/invariants_wait_ends_held.h).
#include "properties/invariants_wait_ends_held.h"

#include <fmt/format.h>

#include <optional>
#include <unordered_map>

#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// A token as its holder reported it: taken, then ended (released or lost) at most once.
struct WaitEndsHeldToken {
  std::uint64_t taken = 0;             // the kLeaseTaken
  std::optional<std::uint64_t> ended;  // the first kLeaseReleased or kLeaseLost since
  EventKind ended_by = EventKind::kLeaseReleased;
};

}  // namespace

void check_remote_wait_ends_held(const Events& events, std::vector<Violation>& out) {
  // Only looked up: hashed (KeyHash).
  std::unordered_map<HeldToken, WaitEndsHeldToken, KeyHash> tokens;
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    switch (r->kind) {
      case EventKind::kLeaseTaken:
        tokens[held_token(*r)] =
            WaitEndsHeldToken{e.index, std::nullopt, EventKind::kLeaseReleased};
        break;
      case EventKind::kLeaseReleased:
      case EventKind::kLeaseLost: {
        auto it = tokens.find(held_token(*r));
        if (it != tokens.end() && !it->second.ended) {
          it->second.ended = e.index;
          it->second.ended_by = r->kind;
        }
        break;
      }
      case EventKind::kRemoteWaitEnded: {
        auto it = tokens.find(held_token(*r));
        if (it == tokens.end()) {
          out.push_back(violation(
              RemoteWaitEndsHeld{}.name(),
              fmt::format("{} reported the remote-children wait of {} ended under token {}, "
                          "which it never took: the wait ends only under the lease taken back",
                          r->holder, runtime::to_string(r->key), r->token),
              {e.index}));
          break;
        }
        if (!it->second.ended) break;
        const bool yielded = it->second.ended_by == EventKind::kLeaseReleased;
        out.push_back(violation(
            RemoteWaitEndsHeld{}.name(),
            fmt::format("{} reported the remote-children wait of {} ended under token {} after "
                        "it {} that token (event #{}) and before any take of the lease again: "
                        "the wait ends only under the lease taken back, never while it is given "
                        "back or in a pass whose retake was refused",
                        r->holder, runtime::to_string(r->key), r->token,
                        yielded ? "released (yielded)" : "lost", *it->second.ended),
            {*it->second.ended, e.index}));
        break;
      }
      default:
        break;
    }
  }
}

void RemoteWaitEndsHeld::check(const sim::World& world, std::vector<Violation>& out) const {
  check_remote_wait_ends_held(world.history().events(), out);
}

}  // namespace fencesim::properties
