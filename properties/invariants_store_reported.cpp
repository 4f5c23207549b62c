// store-reported-as-replied (properties/invariants_store_reported.h).
#include "properties/invariants_store_reported.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "properties/history_support.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;
using runtime::EventKind;

namespace {

// What the reply says that the report must repeat, or why the two cannot be one request.
std::string report_differs(const sim::RuntimeRecord& r, const sim::StoreCall& c) {
  const bool commit = c.op == sim::StoreOp::kCommitStep || c.op == sim::StoreOp::kCommitTree;
  switch (r.kind) {
    case EventKind::kStoreLeaseGranted:
      if (c.op != sim::StoreOp::kTake || c.outcome != "taken"sv || !c.lease) {
        return fmt::format("a grant reported, but the store replied {} '{}'", sim::to_string(c.op),
                           c.outcome);
      }
      if (c.lease->token != r.token || c.lease->expires_at_ns != r.value ||
          c.lease->holder != r.holder) {
        return fmt::format("a grant of token {} to {} until {} reported, but the reply's lease "
                           "is token {} of {} until {}",
                           r.token, r.holder, r.value, c.lease->token, c.lease->holder,
                           c.lease->expires_at_ns);
      }
      return {};
    case EventKind::kStoreLeaseRenewed:
      if (c.op != sim::StoreOp::kRenew || c.outcome != "renewed"sv || !c.lease) {
        return fmt::format("a renewal reported, but the store replied {} '{}'",
                           sim::to_string(c.op), c.outcome);
      }
      if (c.token != r.token || c.lease->expires_at_ns != r.value) {
        return fmt::format("a renewal of token {} until {} reported, but the request renewed "
                           "token {} and the reply's lease ends at {}",
                           r.token, r.value, c.token, c.lease->expires_at_ns);
      }
      return {};
    case EventKind::kStoreCheckpointCommitted:
    case EventKind::kStoreCheckpointRefused: {
      const bool committed = r.kind == EventKind::kStoreCheckpointCommitted;
      const bool replied_committed = c.outcome == "committed"sv;
      if (!commit || committed != replied_committed) {
        return fmt::format("a commit reported {}, but the store replied {} '{}'",
                           committed ? "committed" : "refused", sim::to_string(c.op), c.outcome);
      }
      const std::string_view step = c.op == sim::StoreOp::kCommitTree ? "<tree>"sv : c.argument.view();
      if (c.token != r.token || r.step != step ||
          static_cast<std::int64_t>(c.reply_token) != r.value) {
        return fmt::format("a commit of '{}' under token {} at epoch {} reported, but the "
                           "request was '{}' under token {} and the reply's epoch {}",
                           r.step, r.token, r.value, step, c.token, c.reply_token);
      }
      return {};
    }
    default:
      return {};
  }
}

}  // namespace

void check_store_reported_as_replied(const Events& events, std::vector<Violation>& out) {
  const std::string_view name = StoreReportedAsReplied{}.name();
  // (node, key) -> the store's report waiting for the record of its request.
  std::map<std::pair<sim::NodeId, sim::NameKey>, std::size_t> waiting;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const sim::HistoryEvent& e = events[i];
    if (const sim::RuntimeRecord* r = runtime_event(e)) {
      if (r->kind == EventKind::kStoreLeaseGranted || r->kind == EventKind::kStoreLeaseRenewed ||
          r->kind == EventKind::kStoreCheckpointCommitted ||
          r->kind == EventKind::kStoreCheckpointRefused) {
        waiting[{e.node, r->key}] = i;
      }
      continue;
    }
    if (e.world != sim::WorldEventKind::kStoreCall || !e.store) continue;
    auto it = waiting.find({e.node, e.store->key});
    if (it == waiting.end()) continue;
    const sim::HistoryEvent& report = events[it->second];
    waiting.erase(it);
    const std::string differs = report_differs(report.runtime, *e.store);
    if (differs.empty()) continue;
    out.push_back(violation(name,
                            fmt::format("{} at {} for {}: {}", report.runtime.holder,
                                        std::string_view(e.store->store),
                                        runtime::to_string(e.store->key), differs),
                            {report.index, e.index}));
  }
}

void StoreReportedAsReplied::check(const sim::World& world, std::vector<Violation>& out) const {
  check_store_reported_as_replied(world.history().events(), out);
}

}  // namespace fencesim::properties
