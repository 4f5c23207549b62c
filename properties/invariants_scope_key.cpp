// Scope keys: every scope key in the history decodes and re-encodes to itself, an event's scope key
// is the one its lease key makes, and no two lease keys share a scope key.
#include <fmt/format.h>

#include <set>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "runtime/scope_key.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

std::string_view scope_name() {
  return ScopeKeyInjective{}.name();
}

// Whether `scope_key` round-trips; if not, why.
std::optional<std::string> round_trip_error(const std::string& scope_key) {
  try {
    const std::vector<std::string> parts = runtime::split_scope_key(scope_key);
    if (runtime::make_scope_key(std::span<const std::string>(parts)) == scope_key) {
      return std::nullopt;
    }
    return "it does not re-encode to itself";
  } catch (const runtime::ScopeKeyError& error) {
    return error.what();
  }
}

class Judge {
 public:
  explicit Judge(std::vector<Violation>& out) : out_(out) {}

  void scope_seen(const std::string& scope_key, std::uint64_t index) {
    if (!checked_.insert(scope_key).second) return;
    if (const std::optional<std::string> error = round_trip_error(scope_key)) {
      out_.push_back(violation(
          scope_name(), fmt::format("scope key '{}' does not round-trip: {}", scope_key, *error),
          {index}));
    }
  }

  // A lease key: its scope key round-trips back to its parts.
  void key_seen(const runtime::LeaseKey& key, std::uint64_t index) {
    if (!keys_.insert(key).second) return;
    const std::string scope_key = runtime::make_scope_key(key);
    scope_seen(scope_key, index);
    std::vector<std::string> parts;
    try {
      parts = runtime::split_scope_key(scope_key);
    } catch (const runtime::ScopeKeyError&) {
      return;  // reported by scope_seen
    }
    if (parts == std::vector<std::string>{key.tenant_id, key.lease_execution_id}) return;
    out_.push_back(violation(
        scope_name(),
        fmt::format("the scope key of {} splits into other parts", runtime::to_string(key)),
        {index}));
  }

  // The runtime used `scope_key` for `key`: no other key may use it.
  void claim(const std::string& scope_key, const runtime::LeaseKey& key, std::uint64_t index) {
    auto [it, fresh] = owner_.try_emplace(scope_key, key, index);
    if (fresh || it->second.first == key) return;
    out_.push_back(violation(
        scope_name(),
        fmt::format("lease keys {} and {} share the scope key '{}'",
                    runtime::to_string(it->second.first), runtime::to_string(key), scope_key),
        {it->second.second, index}));
  }

  // An event that names both its lease key and the scope key the runtime used for it.
  void pair_seen(const runtime::RuntimeEvent& r, std::uint64_t index) {
    key_seen(r.key, index);
    scope_seen(r.scope_key, index);
    claim(r.scope_key, r.key, index);
    if (r.scope_key == runtime::make_scope_key(r.key)) return;
    out_.push_back(
        violation(scope_name(),
                  fmt::format("{} for {} carries the scope key '{}', not its own",
                              runtime::to_string(r.kind), runtime::to_string(r.key), r.scope_key),
                  {index}));
  }

 private:
  std::vector<Violation>& out_;
  std::set<std::string> checked_;
  std::set<runtime::LeaseKey> keys_;
  std::map<std::string, std::pair<runtime::LeaseKey, std::uint64_t>> owner_;
};

bool names_a_key(const runtime::RuntimeEvent& r) {
  return !r.key.tenant_id.empty() || !r.key.lease_execution_id.empty();
}

}  // namespace

void check_scope_key_injective(const Events& events, std::vector<Violation>& out) {
  Judge judge(out);
  for (const sim::HistoryEvent& e : events) {
    const runtime::RuntimeEvent* r = runtime_event(e);
    if (r == nullptr) continue;
    if (!r->scope_key.empty() && names_a_key(*r)) {
      judge.pair_seen(*r, e.index);
    } else if (!r->scope_key.empty()) {
      judge.scope_seen(r->scope_key, e.index);  // a sink's event: it knows only the scope key
    } else if (names_a_key(*r)) {
      judge.key_seen(r->key, e.index);
      judge.claim(runtime::make_scope_key(r->key), r->key, e.index);
    }
    if (r->kind == EventKind::kChildPlaced) judge.scope_seen(r->detail, e.index);
  }
}

void ScopeKeyInjective::check(const sim::World& world, std::vector<Violation>& out) const {
  check_scope_key_injective(world.history().events(), out);
}

}  // namespace fencesim::properties
