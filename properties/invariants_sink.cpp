// Sink monotonicity: what the sinks accepted, by token per scope key.
#include <fmt/format.h>

#include <map>
#include <set>

#include "properties/invariants_builtin.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

bool accepted_at_sink(const sim::HistoryEvent& e) {
  return e.world == sim::WorldEventKind::kRuntime &&
         (e.runtime.kind == EventKind::kSinkApplied ||
          e.runtime.kind == EventKind::kSinkDeduplicated);
}

}  // namespace

void SinkMonotonicity::check(const sim::World& world, std::vector<Violation>& out) const {
  // (sink, scope key) -> (highest accepted token, the event that accepted it)
  std::map<std::pair<std::string, std::string>, std::pair<runtime::Token, std::uint64_t>> highest;
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (!accepted_at_sink(e)) continue;
    const auto key = std::make_pair(e.runtime.holder, e.runtime.scope_key);
    auto [it, fresh] = highest.try_emplace(key, e.runtime.token, e.index);
    if (fresh) continue;
    if (e.runtime.token < it->second.first) {
      out.push_back(Violation{
          std::string(name()),
          fmt::format("sink '{}' accepted token {} for scope {} after token {} (event #{})",
                      e.runtime.holder, e.runtime.token, e.runtime.scope_key, it->second.first,
                      it->second.second),
          {it->second.second, e.index}});
    } else {
      it->second = {e.runtime.token, e.index};
    }
  }
}

}  // namespace fencesim::properties
