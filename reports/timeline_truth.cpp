// The truth side of a timeline: what the lease store granted and the sinks and checkpoint store
// accepted. The store's expiry is taken to true time through the store's own clock (its monotonic
// reading plus the ttl, as the store's wall clock runs alongside it), so a holder's belief and the
// store's lease share one axis.
#include <map>

#include "properties/history_support.h"
#include "reports/timeline_parts.h"

namespace fencesim::reports::timeline {

using runtime::EventKind;

namespace {

// The store's lease, taken at event `e` (a grant or renewal), ends ttl later on the store's clock.
std::int64_t store_expiry(const Frame& frame, const sim::HistoryEvent& e) {
  return true_time(frame, e, e.local_monotonic_ns + frame.facts.ttl_ns);
}

void end_epoch(Json& epoch, std::int64_t at_ns, std::optional<std::uint64_t> event,
               std::string_view kind) {
  const std::int64_t valid_until = epoch["valid_until_ns"].get<std::int64_t>();
  // A lease that ran out before it was superseded (or the run ended) ended at its expiry.
  const bool expired = kind != "released" && valid_until <= at_ns;
  epoch["ended_ns"] = expired ? valid_until : at_ns;
  epoch["end_event"] = event && !expired ? Json(*event) : Json();
  epoch["end_kind"] = expired ? std::string_view("expired") : kind;
}

Json new_epoch(const Frame& frame, const sim::HistoryEvent& e) {
  const sim::RuntimeRecord& r = e.runtime;
  return Json{{"node", e.node},
              {"key", runtime::to_string(r.key)},
              {"token", r.token},
              {"holder", r.holder},
              {"granted_ns", e.time_ns},
              {"event", e.index},
              {"valid_until_ns", store_expiry(frame, e)},
              {"renewals", Json::array()}};
}

}  // namespace

Json store_epochs(const Frame& frame) {
  Json epochs = Json::array();
  std::map<runtime::LeaseKey, std::size_t> current;  // key -> its latest epoch, while not ended
  std::map<std::pair<runtime::LeaseKey, runtime::Token>, std::size_t> by_token;
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind == EventKind::kStoreLeaseGranted) {
      auto previous = current.find(r->key);
      if (previous != current.end())
        end_epoch(epochs[previous->second], e.time_ns, e.index, "superseded");
      current[r->key] = epochs.size();
      by_token[{r->key, r->token}] = epochs.size();
      epochs.push_back(new_epoch(frame, e));
      continue;
    }
    if (r->kind != EventKind::kStoreLeaseRenewed && r->kind != EventKind::kStoreRenewRefused &&
        r->kind != EventKind::kStoreLeaseReleased) {
      continue;
    }
    auto found = by_token.find({r->key, r->token});
    if (found == by_token.end()) continue;
    Json& epoch = epochs[found->second];
    if (r->kind == EventKind::kStoreLeaseRenewed) {
      const std::int64_t until = store_expiry(frame, e);
      epoch["valid_until_ns"] = until;
      epoch["renewals"].push_back(
          Json{{"t", e.time_ns}, {"event", e.index}, {"holder", r->holder}, {"until_ns", until}});
    } else if (r->kind == EventKind::kStoreRenewRefused) {
      epoch["renewals"].push_back(Json{
          {"t", e.time_ns}, {"event", e.index}, {"holder", r->holder}, {"refused", r->detail}});
    } else if (!epoch.contains("ended_ns")) {
      end_epoch(epoch, e.time_ns, e.index, "released");
      auto latest = current.find(r->key);
      if (latest != current.end() && latest->second == found->second) current.erase(latest);
    }
  }
  for (const auto& [key, index] : current) {
    end_epoch(epochs[index], frame.end_ns, std::nullopt, "held");
  }
  return epochs;
}

Json sink_writes(const Frame& frame) {
  Json writes = Json::array();
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    std::string_view outcome;
    if (r->kind == EventKind::kSinkApplied) {
      outcome = "applied";
    } else if (r->kind == EventKind::kSinkDeduplicated) {
      outcome = "deduplicated";
    } else if (r->kind == EventKind::kSinkRefused) {
      outcome = "refused";
    } else {
      continue;
    }
    writes.push_back(Json{{"node", e.node},
                          {"sink", r->holder},
                          {"scope_key", r->scope_key},
                          {"token", r->token},
                          {"outcome", outcome},
                          {"high_water", r->value},
                          {"idempotency_key", r->detail},
                          {"t", e.time_ns},
                          {"event", e.index}});
  }
  return writes;
}

Json checkpoint_judgements(const Frame& frame) {
  Json judgements = Json::array();
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind != EventKind::kStoreCheckpointCommitted &&
        r->kind != EventKind::kStoreCheckpointRefused) {
      continue;
    }
    judgements.push_back(
        Json{{"node", e.node},
             {"key", runtime::to_string(r->key)},
             {"token", r->token},
             {"step", r->step},
             {"outcome", r->kind == EventKind::kStoreCheckpointCommitted ? "committed" : "refused"},
             {"epoch", r->value},
             {"t", e.time_ns},
             {"event", e.index}});
  }
  return judgements;
}

}  // namespace fencesim::reports::timeline
