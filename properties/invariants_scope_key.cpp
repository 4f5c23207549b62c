// Scope keys, judged against the oracle's own reference (properties/reference_uri.h, held to
// JavaScript's encodeURIComponent by its unit test), never the runtime's encoder: every event that
// names a lease key and a scope key carries exactly the reference scope key of that lease key;
// every scope key alone (a sink's, a placed child's) is well formed; no two lease keys share one.
#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "properties/reference_uri.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

std::string_view scope_name() {
  return ScopeKeyInjective{}.name();
}

class ScopeKeyJudge {
 public:
  explicit ScopeKeyJudge(std::vector<Violation>& out) : out_(out) {}

  // A scope key seen alone: it must be a well-formed key of two parts.
  void scope_seen(const std::string& scope_key, std::uint64_t index) {
    if (!checked_.insert(scope_key).second) return;
    const auto parts = reference_split_scope_key(scope_key);
    if (!parts) {
      out_.push_back(violation(
          scope_name(),
          fmt::format("scope key '{}' is not encodeURIComponent parts joined by ':'", scope_key),
          {index}));
    } else if (parts->size() != 2) {
      out_.push_back(violation(scope_name(),
                               fmt::format("scope key '{}' has {} parts, a lease key has 2",
                                           scope_key, parts->size()),
                               {index}));
    }
  }

  // The runtime used `scope_key` for `key`: it must be the reference's, and no other key's.
  void pair_seen(const sim::NameKey& key, const sim::Name& scope_key, std::string_view what,
                 std::uint64_t index) {
    auto [it, fresh] = owner_.try_emplace(scope_key, key, index);
    if (!fresh && it->second.first != key) {
      out_.push_back(violation(
          scope_name(),
          fmt::format("lease keys {} and {} share the scope key '{}'",
                      runtime::to_string(it->second.first), runtime::to_string(key), scope_key),
          {it->second.second, index}));
    }
    if (!fresh && it->second.first == key) return;  // judged when first seen
    const std::string expected = reference_scope_key(key.lease_key());
    if (scope_key == expected) return;
    out_.push_back(violation(scope_name(),
                             fmt::format("{} for {} carries the scope key '{}', JavaScript's "
                                         "encodeURIComponent makes '{}'",
                                         what, runtime::to_string(key), scope_key, expected),
                             {index}));
  }

 private:
  std::vector<Violation>& out_;
  // Only looked up: hashed (KeyHash).
  std::unordered_set<std::string> checked_;
  // Keyed by the history's names (sim/name.h): judging an event copies no bytes.
  std::unordered_map<sim::Name, std::pair<sim::NameKey, std::uint64_t>, KeyHash> owner_;
};

bool names_a_key(const sim::RuntimeRecord& r) {
  return !r.key.tenant_id.empty() || !r.key.lease_execution_id.empty();
}

}  // namespace

void check_scope_key_injective(const Events& events, std::vector<Violation>& out) {
  ScopeKeyJudge judge(out);
  // Lease key -> what was placed under it first: two trees (a root and a child, two children) that
  // the runtime names with one lease key would share one lease, one epoch and one checkpoint.
  std::unordered_map<sim::NameKey, std::pair<const sim::StoreCall*, std::uint64_t>, KeyHash> placed;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      if (call.op == sim::StoreOp::kWrite) judge.scope_seen(call.scope_key, e.index);
      if (!is_placement(call)) continue;
      auto [it, fresh] = placed.try_emplace(call.key, &call, e.index);
      const sim::StoreCall& first = *it->second.first;
      if (fresh || (first.argument == call.argument && first.parent == call.parent)) continue;
      out.push_back(violation(
          scope_name(),
          fmt::format("two trees share the lease key {}: workflow '{}' (parent {}) and workflow "
                      "'{}' (parent {})",
                      runtime::to_string(call.key), first.argument,
                      first.parent ? runtime::to_string(*first.parent) : "none", call.argument,
                      call.parent ? runtime::to_string(*call.parent) : "none"),
          {it->second.second, e.index}));
      continue;
    }
    const sim::RuntimeRecord* r = runtime_event(e);
    if (r == nullptr) continue;
    if (!r->scope_key.empty() && names_a_key(*r)) {
      judge.pair_seen(r->key, r->scope_key, runtime::to_string(r->kind), e.index);
    } else if (!r->scope_key.empty()) {
      judge.scope_seen(r->scope_key, e.index);  // a sink's event: it knows only the scope key
    }
    if (r->kind == EventKind::kChildPlaced) judge.scope_seen(r->detail, e.index);
  }
}

void ScopeKeyInjective::check(const sim::World& world, std::vector<Violation>& out) const {
  check_scope_key_injective(world.history().events(), out);
}

}  // namespace fencesim::properties
