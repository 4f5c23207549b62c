// Invariants over what the sinks accepted: monotonic tokens per scope key, exactly-once effects.
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

void ExactlyOnce::check(const sim::World& world, std::vector<Violation>& out) const {
  // (sink, scope key, idempotency key) -> applying events
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::uint64_t>> applied;
  std::set<runtime::LeaseKey> completed;
  // Idempotency keys written by steps of each tree (by the tree's lease key), with a sent event.
  std::map<std::string, std::pair<runtime::LeaseKey, std::uint64_t>> written;
  for (const sim::HistoryEvent& e : world.history().events()) {
    if (e.world != sim::WorldEventKind::kRuntime) continue;
    const runtime::RuntimeEvent& r = e.runtime;
    if (r.kind == EventKind::kSinkApplied) {
      applied[{r.holder, r.scope_key, r.detail}].push_back(e.index);
    } else if (r.kind == EventKind::kStoreCheckpointCommitted && r.step == "<tree>") {
      completed.insert(r.key);
    } else if (r.kind == EventKind::kWriteSent) {
      written.try_emplace(r.scope_key + "\n" + r.detail, r.key, e.index);
    }
  }
  std::set<std::string> effected;
  for (const auto& [key, events] : applied) {
    const auto& [sink, scope, idempotency] = key;
    effected.insert(scope + "\n" + idempotency);
    if (events.size() > 1) {
      out.push_back(Violation{std::string(name()),
                              fmt::format("sink '{}' applied idempotency key {} {} times", sink,
                                          idempotency, events.size()),
                              events});
    }
  }
  for (const auto& [key, sent] : written) {
    if (completed.contains(sent.first) && !effected.contains(key)) {
      out.push_back(
          Violation{std::string(name()),
                    fmt::format("tree {} completed but the write {} never took effect",
                                runtime::to_string(sent.first), key.substr(key.find('\n') + 1)),
                    {sent.second}});
    }
  }
}

}  // namespace fencesim::properties
