// signal-reason-kept (properties/invariants_signal_reason.h).
#include "properties/invariants_signal_reason.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "properties/history_support.h"

namespace fencesim::properties {

namespace {

struct FirstReason {
  sim::Name reason;
  std::uint64_t at = 0;  // the read that first saw it
};

}  // namespace

void check_signal_reason_kept(const std::vector<sim::HistoryEvent>& events,
                              std::vector<Violation>& out) {
  const std::string_view name = SignalReasonKept{}.name();
  std::map<NodeToken, FirstReason> first;  // one lease's signal, as its node's bodies read it
  for (const sim::HistoryEvent& e : events) {
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "signal-reason"sv) {
      continue;
    }
    if (e.runtime.token == runtime::kTokenNone) continue;  // no lease's signal
    const NodeToken signal = node_token(e);
    auto seen = first.find(signal);
    if (seen == first.end()) {
      if (e.detail != "live"sv) first.emplace(signal, FirstReason{e.detail, e.index});
      continue;
    }
    if (e.detail == seen->second.reason) continue;
    out.push_back(violation(
        name,
        fmt::format("the signal of token {} of {} on node {} read '{}' at true time {} ns after a "
                    "read had seen it aborted with '{}' (event #{}): the first reason is kept, a "
                    "later abort does not replace it",
                    e.runtime.token, runtime::to_string(e.runtime.key), e.node,
                    std::string_view(e.detail), e.time_ns, std::string_view(seen->second.reason),
                    seen->second.at),
        {seen->second.at, e.index}));
  }
}

void SignalReasonKept::check(const sim::World& world, std::vector<Violation>& out) const {
  check_signal_reason_kept(world.history().events(), out);
}

}  // namespace fencesim::properties
