// No false fencing, judged on the truth: every refusal by a sink or by the checkpoint store must be
// explained by a later take of the same lease key (or, at the checkpoint store, by the holder's own
// release). Sinks know only scope keys, so a sink's refusal is matched through the oracle's own
// encoder (reference_scope_key, never the runtime's make_scope_key: a wrong encoder would match
// a refusal to the wrong key); the holder's kWriteRefused names its lease key, so there the grant
// must be of that very key.
#include <fmt/format.h>

#include <set>
#include <string>
#include <unordered_map>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/key_hash.h"
#include "properties/reference_uri.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// The highest token granted so far, and the event that granted it.
struct Highest {
  runtime::Token token = runtime::kTokenNone;
  std::uint64_t granted_at = 0;
};

std::vector<std::uint64_t> with_grant(const std::optional<Highest>& highest, std::uint64_t event) {
  if (!highest) return {event};
  return {highest->granted_at, event};
}

std::string highest_text(const std::optional<Highest>& highest) {
  return highest ? fmt::format("highest granted: {}", highest->token) : "none granted";
}

}  // namespace

void check_no_false_fencing(const Events& events, std::vector<Violation>& out) {
  const std::string_view name = NoFalseFencing{}.name();
  std::map<std::string, Highest> by_scope;
  std::map<sim::NameKey, Highest> by_key;
  // Only looked up, never walked: its order reaches no verdict.
  std::unordered_map<sim::NameKey, std::string, KeyHash> scope_keys;
  std::set<std::pair<sim::NameKey, runtime::Token>> released;
  auto find = [](const auto& map, const auto& key) -> std::optional<Highest> {
    auto it = map.find(key);
    if (it == map.end()) return std::nullopt;
    return it->second;
  };
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kStoreLeaseGranted) {
      // Each key's reference scope key is worked out once: a key is granted again and again.
      auto [encoded, fresh] = scope_keys.try_emplace(r->key);
      if (fresh) encoded->second = reference_scope_key(r->key);
      by_scope[encoded->second] = Highest{r->token, e.index};
      by_key[r->key] = Highest{r->token, e.index};
    } else if (r->kind == EventKind::kStoreLeaseReleased) {
      released.insert({r->key, r->token});
    } else if (r->kind == EventKind::kSinkRefused) {
      const std::optional<Highest> highest = find(by_scope, r->scope_key);
      if (highest && highest->token > r->token) continue;
      out.push_back(violation(name,
                              fmt::format("sink '{}' refused token {} of scope {} though no higher "
                                          "token was granted for it ({})",
                                          r->holder, r->token, r->scope_key, highest_text(highest)),
                              with_grant(highest, e.index)));
    } else if (r->kind == EventKind::kWriteRefused) {
      // The holder knows its lease key: a refusal explained only by another key's grant under
      // a shared scope key is still a false fence (AnyInstance children have keys of their own).
      const std::optional<Highest> highest = find(by_key, r->key);
      if (highest && highest->token > r->token) continue;
      out.push_back(violation(name,
                              fmt::format("{} was refused token {} of {} (step '{}') though no "
                                          "higher token was granted for that key ({})",
                                          r->holder, r->token, runtime::to_string(r->key), r->step,
                                          highest_text(highest)),
                              with_grant(highest, e.index)));
    } else if (r->kind == EventKind::kStoreCheckpointRefused) {
      if (r->detail == "cancelled") continue;  // a completion refused by a recorded cancel
      const std::optional<Highest> highest = find(by_key, r->key);
      if (highest && highest->token > r->token) continue;
      if (released.contains({r->key, r->token})) continue;
      out.push_back(violation(
          name,
          fmt::format("the checkpoint store refused token {} of {} (step '{}') "
                      "though no higher token was granted and it was not "
                      "released ({})",
                      r->token, runtime::to_string(r->key), r->step, highest_text(highest)),
          with_grant(highest, e.index)));
    }
  }
}

void NoFalseFencing::check(const sim::World& world, std::vector<Violation>& out) const {
  check_no_false_fencing(world.history().events(), out);
}

}  // namespace fencesim::properties
