// Exactly-once, judged by what the workload intended (its kIntent records, each naming its effect by
// the workload's own effect identity inside the payload) against what each sink received and applied
// as the simulator recorded it at the sink's node (kStoreCall writes), never by the runtime's
// idempotency key or its sink events:
// - every applied payload is one the workload intended, at the sink it intended, under a token it
//   intended it with, and each intended effect is applied at most once;
// - once its tree completed (the store committed the tree), each effect intended by a step run
//   whose checkpoint the store committed is applied exactly once (unless that body saw its write
//   fail and went on regardless: the workload's choice);
// - a completed tree shows an intent for every effect its workflow declares (the workload's data:
//   scenarios::DeclaredStep), one per declared step, counted by distinct step path: a step that never
//   ran, or two steps whose paths collide so that one is skipped, leaves too few.
#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>

#include "properties/history_support.h"
#include "properties/invariants_builtin.h"
#include "scenarios/workload.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

namespace {

std::string_view name() {
  return ExactlyOnce{}.name();
}

// Every text below is a name the history recorded (or a view into one), never a copy: the
// history outlives the check, and names and views order by their bytes as strings do.
struct Intended {
  sim::Name sink;
  std::set<sim::Name> payloads;
  std::set<runtime::Token> tokens;
  std::uint64_t first = 0;
};

// A run of a step: (tree, token, step path).
// By the recorded names: a tree's key is compared by identity, never copied.
using RunKey = std::tuple<sim::NameKey, runtime::Token, sim::Name>;

struct RunIntent {
  std::string_view identity;  // the start of the intent's payload
  sim::Name sink;
  sim::Name effect;
  std::uint64_t index = 0;
};

void count_declared(const runtime::WorkflowRegistry& registry, const std::string& workflow,
                    int depth, DeclaredEffects& out) {
  if (depth > 16 || !registry.contains(workflow)) return;  // the runtime cannot run it either
  for (const runtime::WorkflowItem& item : registry.get(workflow).items) {
    if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
      if (const auto* declared = step->body.target<scenarios::DeclaredStep>()) {
        for (const scenarios::DeclaredEffect& effect : declared->effects) {
          ++out[{effect.sink, effect.effect}];
        }
      }
      continue;
    }
    for (const runtime::ChildItem& child : std::get<runtime::GroupItem>(item).children) {
      // Inline children run under this tree's lease; AnyInstance children are trees of their own.
      if (child.placement != runtime::ChildPlacement::kAnyInstance) {
        count_declared(registry, child.workflow, depth + 1, out);
      }
    }
  }
}

}  // namespace

DeclaredLookup declared_effects_of(const runtime::WorkflowRegistry& registry) {
  auto cache = std::make_shared<std::map<std::string, DeclaredEffects>>();
  return [&registry, cache](const std::string& workflow) -> const DeclaredEffects& {
    auto it = cache->find(workflow);
    if (it == cache->end()) {
      it = cache->emplace(workflow, DeclaredEffects{}).first;
      count_declared(registry, workflow, 0, it->second);
    }
    return it->second;
  };
}

void check_exactly_once(const Events& events, const DeclaredLookup& declared,
                        std::vector<Violation>& out) {
  std::map<std::string_view, Intended> intended;  // by identity
  std::map<RunKey, std::vector<RunIntent>> by_run;
  // Per tree, per (sink, effect): the distinct step paths the workload intended it at.
  std::map<sim::NameKey, std::map<std::pair<sim::Name, sim::Name>, std::set<sim::Name>>> paths;
  std::set<std::tuple<RunKey, sim::Name, sim::Name>> failed;  // (run, sink, effect) seen failing
  std::map<std::pair<sim::Name, std::string_view>, std::vector<std::uint64_t>> applied;
  std::map<std::uint64_t, const sim::StoreCall*> applied_call;
  std::set<RunKey> committed;
  std::map<sim::NameKey, std::uint64_t> completed;
  std::map<sim::NameKey, sim::Name> workflow_of;

  for (const sim::HistoryEvent& e : events) {
    if (e.world == sim::WorldEventKind::kIntent) {
      const sim::RuntimeRecord& r = e.runtime;
      const auto identity = scenarios::parse_effect_identity(e.detail);
      if (!identity) {
        out.push_back(violation(name(), "an intent without the workload's effect identity",
                                {e.index}));
        continue;
      }
      const std::string_view id = e.detail.view().substr(0, identity->length);
      Intended& intent = intended[id];
      if (intent.payloads.empty()) {
        intent.sink = r.holder;
        intent.first = e.index;
      }
      intent.payloads.insert(e.detail);
      intent.tokens.insert(r.token);
      // A withdrawal's effect (value 1) is meant at most once: nobody re-runs a withdrawal, so
      // its step's committed outcome does not owe it. It is still judged at most once below.
      if (r.value == 0) {
        by_run[{r.key, r.token, r.step}].push_back(RunIntent{id, r.holder, r.detail, e.index});
        paths[r.key][{r.holder, r.detail}].insert(r.step);
      }
    } else if (e.world == sim::WorldEventKind::kObserved) {
      const sim::RuntimeRecord& r = e.runtime;
      if (r.holder == "write" && e.detail.starts_with("error")) {
        failed.insert({{r.key, r.token, r.step}, r.scope_key, r.detail});
      }
    } else if (e.world == sim::WorldEventKind::kStoreCall && e.store) {
      const sim::StoreCall& call = *e.store;
      switch (call.op) {
        case sim::StoreOp::kWrite: {
          if (call.outcome != "applied"sv) break;
          const auto identity = scenarios::parse_effect_identity(call.payload);
          if (!identity) {
            out.push_back(violation(
                name(),
                fmt::format("sink '{}' applied a payload no workload intended: '{}'", call.store,
                            call.payload),
                {e.index}));
            break;
          }
          applied[{call.store, call.payload.view().substr(0, identity->length)}].push_back(e.index);
          applied_call[e.index] = &call;
          break;
        }
        case sim::StoreOp::kCommitStep:
          if (call.outcome == "committed"sv) committed.insert({call.key, call.token, call.argument});
          break;
        case sim::StoreOp::kCommitTree:
          if (call.outcome == "committed"sv) completed.try_emplace(call.key, e.index);
          break;
        case sim::StoreOp::kPlace:
          if (is_placement(call)) workflow_of.try_emplace(call.key, call.argument);
          break;
        default:
          break;
      }
    }
  }

  // At most once, and only what was intended, where and how it was intended.
  for (const auto& [where, indices] : applied) {
    const auto& [sink, id] = where;
    if (indices.size() > 1) {
      out.push_back(violation(name(),
                              fmt::format("sink '{}' applied the effect {} {} times", sink, id,
                                          indices.size()),
                              indices));
    }
    auto it = intended.find(id);
    if (it == intended.end()) {
      out.push_back(violation(
          name(), fmt::format("sink '{}' applied the effect {}, which no step intended", sink, id),
          {indices.front()}));
      continue;
    }
    const Intended& intent = it->second;
    for (const std::uint64_t index : indices) {
      const sim::StoreCall& call = *applied_call.at(index);
      if (sink != intent.sink) {
        out.push_back(violation(name(),
                                fmt::format("the effect {} was intended at sink '{}' but applied "
                                            "at sink '{}'",
                                            id, intent.sink, sink),
                                {intent.first, index}));
      } else if (!intent.payloads.contains(call.payload)) {
        out.push_back(violation(
            name(),
            fmt::format("sink '{}' applied the effect {} with payload '{}', which was never "
                        "intended",
                        sink, id, call.payload),
            {intent.first, index}));
      } else if (!intent.tokens.contains(call.token)) {
        out.push_back(violation(name(),
                                fmt::format("sink '{}' applied the effect {} under token {}, "
                                            "under which no step intended it",
                                            sink, id, call.token),
                                {intent.first, index}));
      }
    }
  }

  for (const auto& [tree, completed_at] : completed) {
    // Exactly once: every effect of a step run whose outcome the store committed.
    for (auto it = by_run.lower_bound({tree, runtime::kTokenNone, sim::Name()});
         it != by_run.end() && std::get<0>(it->first) == tree; ++it) {
      if (!committed.contains(it->first)) continue;
      for (const RunIntent& intent : it->second) {
        if (failed.contains({it->first, intent.sink, intent.effect})) continue;
        if (applied.contains({intent.sink, intent.identity})) continue;
        out.push_back(violation(
            name(),
            fmt::format("tree {} completed and step '{}' committed under token {}, but its effect "
                        "'{}' never reached sink '{}'",
                        runtime::to_string(tree.lease_key()), std::get<2>(it->first),
                        std::get<1>(it->first),
                        intent.effect, intent.sink),
            {intent.index, completed_at}));
      }
    }
    // Every declared effect was intended, once per declared step.
    auto workflow = workflow_of.find(tree);
    if (workflow == workflow_of.end()) continue;
    const auto tree_paths = paths.find(tree);
    for (const auto& [effect, count] : declared(workflow->second)) {
      std::size_t seen = 0;
      std::string where;
      if (tree_paths != paths.end()) {
        const std::pair<sim::Name, sim::Name> named{effect.first, effect.second};
        if (auto p = tree_paths->second.find(named); p != tree_paths->second.end()) {
          seen = p->second.size();
          for (const sim::Name& path : p->second) where += " '" + path + "'";
        }
      }
      if (seen >= static_cast<std::size_t>(count)) continue;
      out.push_back(violation(
          name(),
          fmt::format("tree {} completed; workflow '{}' declares {} step(s) writing effect '{}' to "
                      "sink '{}', but the workload intended it at {} step path(s):{}",
                      runtime::to_string(tree.lease_key()), workflow->second, count, effect.second,
                      effect.first, seen, where),
          {completed_at}));
    }
  }
}

void ExactlyOnce::check(const sim::World& world, std::vector<Violation>& out) const {
  check_exactly_once(world.history().events(), declared_effects_of(world.workflows()), out);
}

}  // namespace fencesim::properties
