// belief-reported-as-read (properties/invariants_belief_reported.h).
#include "properties/invariants_belief_reported.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "properties/fence_read.h"
#include "properties/history_support.h"

namespace fencesim::properties {

using runtime::EventKind;

namespace {

// The belief a holder last reported for one lease (key, token).
struct ReportedBelief {
  runtime::Nanoseconds until = 0;
  sim::NodeId node = sim::kWorldNode;
  std::uint64_t index = 0;
};

}  // namespace

void check_belief_reported_as_read(const Events& events, std::vector<Violation>& out) {
  const std::string_view name = BeliefReportedAsRead{}.name();
  std::map<std::pair<sim::NameKey, runtime::Token>, ReportedBelief> reported;
  for (const sim::HistoryEvent& e : events) {
    if (const sim::RuntimeRecord* r = runtime_event(e)) {
      if (r->kind == EventKind::kLeaseTaken || r->kind == EventKind::kLeaseRenewed) {
        reported[{r->key, r->token}] = ReportedBelief{r->value, e.node, e.index};
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kObserved || e.runtime.holder != "fence") continue;
    const std::optional<FenceRead> read = parse_fence_read(e.detail);
    // An unreadable record is fence-after-loss's to report; a lost lease's belief was cut to the
    // loss (and reported as a loss, not a belief).
    if (!read || !read->held) continue;
    const sim::RuntimeRecord& r = e.runtime;
    auto it = reported.find({r.key, r.token});
    if (it == reported.end() || it->second.node != e.node) {
      out.push_back(violation(
          name,
          fmt::format("step '{}' of {} read its fence held under token {} (confirmedUntil {}ns), "
                      "but no take or renewal of that token was reported at its node",
                      r.step, runtime::to_string(r.key), r.token, read->until),
          {e.index}));
      continue;
    }
    if (read->until == it->second.until) continue;
    out.push_back(violation(
        name,
        fmt::format("step '{}' of {} (token {}): its fence read confirmedUntil {}ns, but its "
                    "holder's last report of the belief said {}ns",
                    r.step, runtime::to_string(r.key), r.token, read->until, it->second.until),
        {it->second.index, e.index}));
  }
}

void BeliefReportedAsRead::check(const sim::World& world, std::vector<Violation>& out) const {
  check_belief_reported_as_read(world.history().events(), out);
}

}  // namespace fencesim::properties
