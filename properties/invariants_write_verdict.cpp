#include "properties/invariants_write_verdict.h"

#include <fmt/format.h>

#include <map>
#include <tuple>
#include <vector>

#include "properties/history_support.h"

namespace fencesim::properties {

namespace {

// What identifies one write call from the workload's side: the intent is recorded as the call
// begins (World::intend, then the call), on the step's node. A call's intent is the latest one of
// its key at or before the call began (the same instant in a simulated run; a little earlier in a
// real one, whose clock moves between the two records). Several calls can share all of it (two
// trees' steps of one name on one node in one instant): each keeps its own payload.
using CallKey = std::tuple<sim::NodeId, runtime::LeaseKey, std::string, std::string, std::string,
                           runtime::Token>;  // node, tree, step, sink, effect, token

struct Intent {
  std::int64_t time_ns = 0;
  std::string payload;
};

struct Judged {
  std::int64_t time_ns = 0;
  std::string outcome;
  std::uint64_t index = 0;
};

}  // namespace

void check_write_verdict(const Events& events, std::vector<Violation>& out) {
  std::map<CallKey, std::vector<Intent>> intents;  // what the calls were meant to carry, in order
  // The sink's verdicts by (sink, token, payload), in order.
  std::map<std::tuple<std::string, runtime::Token, std::string>, std::vector<Judged>> judged;
  for (const sim::HistoryEvent& e : events) {
    const sim::RuntimeRecord& r = e.runtime;
    if (e.world == sim::WorldEventKind::kIntent) {
      intents[{e.node, r.key, r.step, r.holder, r.detail, r.token}].push_back({e.time_ns, e.detail});
    } else if (e.world == sim::WorldEventKind::kStoreCall && e.store &&
               e.store->op == sim::StoreOp::kWrite) {
      const sim::StoreCall& call = *e.store;
      judged[{call.store, call.token, call.payload}].push_back(
          Judged{e.time_ns, call.outcome, e.index});
    } else if (e.world == sim::WorldEventKind::kObserved && r.holder == "write" &&
               !e.detail.starts_with("error")) {
      // r.scope_key is the sink's name, r.detail the effect, r.value the call's true start.
      std::vector<const Intent*> mine;  // the latest intents at or before the call began
      if (auto it = intents.find({e.node, r.key, r.step, r.scope_key, r.detail, r.token});
          it != intents.end()) {
        for (const Intent& intent : it->second) {
          if (intent.time_ns > r.value) break;
          if (!mine.empty() && mine.front()->time_ns < intent.time_ns) mine.clear();
          mine.push_back(&intent);
        }
      }
      if (mine.empty()) {
        out.push_back(violation(
            "write-verdict",
            fmt::format("step '{}' saw its write of '{}' to sink '{}' return '{}', but no intent "
                        "began that call",
                        r.step, r.detail, r.scope_key, e.detail),
            {e.index}));
        continue;
      }
      if (e.detail != "applied" && e.detail != "deduplicated") {
        out.push_back(violation(
            "write-verdict",
            fmt::format("step '{}' saw its write of '{}' to sink '{}' under token {} return '{}': "
                        "only an applied or deduplicated write may return",
                        r.step, r.detail, r.scope_key, r.token, e.detail),
            {e.index}));
        continue;
      }
      bool found = false;
      std::string seen;
      for (const Intent* intent : mine) {
        auto it = judged.find({r.scope_key, r.token, intent->payload});
        if (it == judged.end()) continue;
        for (const Judged& j : it->second) {
          if (j.time_ns < intent->time_ns || j.time_ns > e.time_ns) continue;
          seen += (seen.empty() ? "" : ", ") + j.outcome;
          found = found || j.outcome == e.detail;
        }
      }
      if (!found) {
        out.push_back(violation(
            "write-verdict",
            fmt::format("step '{}' saw its write of '{}' to sink '{}' under token {} return '{}', "
                        "but while it was in flight the sink judged that payload {}",
                        r.step, r.detail, r.scope_key, r.token, e.detail,
                        seen.empty() ? std::string("never") : "as " + seen),
            {e.index}));
      }
    }
  }
}

void WriteVerdict::check(const sim::World& world, std::vector<Violation>& out) const {
  check_write_verdict(world.history().events(), out);
}

}  // namespace fencesim::properties
