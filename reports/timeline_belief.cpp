// The instance side of a timeline: what each holder believed and attempted. A holder's belief is
// its own: the confirmedUntil it computed on its monotonic clock, taken here to true time through
// that clock's rate, so it can be set against the store's expiry on the same axis.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "properties/history_support.h"
#include "reports/timeline_parts.h"

namespace fencesim::reports::timeline {

using runtime::EventKind;

namespace {

struct OpenBelief {
  std::size_t index = 0;                                         // into the spans array
  std::vector<std::pair<std::int64_t, std::int64_t>> confirmed;  // [from, until] in true time
};

// The confirmed intervals, clipped to [from, to] and merged, as [[start, end], ...].
Json merge_confirmed(std::vector<std::pair<std::int64_t, std::int64_t>> intervals,
                     std::int64_t from, std::int64_t to) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (auto [start, end] : intervals) {
    start = std::max(start, from);
    end = std::min(end, to);
    if (end <= start) continue;
    if (!merged.empty() && start <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, end);
    } else {
      merged.emplace_back(start, end);
    }
  }
  Json out = Json::array();
  for (const auto& [start, end] : merged) out.push_back(Json::array({start, end}));
  return out;
}

void close_belief(Json& span, OpenBelief& open, std::int64_t at_ns,
                  std::optional<std::uint64_t> event, std::string_view kind,
                  const std::string& detail) {
  span["ended_ns"] = at_ns;
  span["end_event"] = event ? Json(*event) : Json();
  span["end_kind"] = kind;
  span["end_detail"] = detail;
  span["confirmed"] =
      merge_confirmed(std::move(open.confirmed), span["taken_ns"].get<std::int64_t>(), at_ns);
}

Json new_belief(const sim::HistoryEvent& e, std::int64_t until_ns) {
  const sim::RuntimeRecord& r = e.runtime;
  return Json{{"node", e.node},
              {"holder", r.holder},
              {"key", runtime::to_string(r.key)},
              {"token", r.token},
              {"taken_ns", e.time_ns},
              {"event", e.index},
              {"confirmed_until_ns", until_ns},
              {"renewals", Json::array()}};
}

}  // namespace

std::int64_t true_time(const Frame& frame, const sim::HistoryEvent& event,
                       std::int64_t target_monotonic_ns) {
  return properties::true_time_when(frame.facts, event.node, event.time_ns,
                                    event.local_monotonic_ns, target_monotonic_ns);
}

Json belief_spans(const Frame& frame) {
  Json spans = Json::array();
  std::map<properties::HeldToken, OpenBelief> open;
  const auto end_node = [&](sim::NodeId node, const sim::HistoryEvent& e) {
    for (auto it = open.begin(); it != open.end();) {
      if (spans[it->second.index]["node"] != node) {
        ++it;
        continue;
      }
      close_belief(spans[it->second.index], it->second, e.time_ns, e.index, "crashed",
                   "memory lost");
      it = open.erase(it);
    }
  };
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    if (e.world == sim::WorldEventKind::kNodeCrashed) end_node(e.node, e);
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    const properties::HeldToken held = properties::held_token(*r);
    if (r->kind == EventKind::kLeaseTaken) {
      const std::int64_t until = true_time(frame, e, r->value);
      open[held] = OpenBelief{spans.size(), {{e.time_ns, until}}};
      spans.push_back(new_belief(e, until));
      continue;
    }
    auto it = open.find(held);
    if (it == open.end()) continue;
    Json& span = spans[it->second.index];
    if (r->kind == EventKind::kLeaseRenewed) {
      const std::int64_t until = true_time(frame, e, r->value);
      it->second.confirmed.emplace_back(e.time_ns, until);
      span["confirmed_until_ns"] = until;
      span["renewals"].push_back(Json{{"t", e.time_ns}, {"event", e.index}, {"until_ns", until}});
    } else if (r->kind == EventKind::kRenewRefused) {
      span["renewals"].push_back(
          Json{{"t", e.time_ns}, {"event", e.index}, {"refused", r->detail}});
    } else if (r->kind == EventKind::kLeaseLost || r->kind == EventKind::kLeaseReleased) {
      close_belief(span, it->second, e.time_ns, e.index,
                   r->kind == EventKind::kLeaseLost ? "lost" : "released", r->detail);
      open.erase(it);
    }
  }
  for (auto& [held, belief] : open) {
    close_belief(spans[belief.index], belief, frame.end_ns, std::nullopt, "run-end", "");
  }
  return spans;
}

Json step_spans(const Frame& frame) {
  Json spans = Json::array();
  // (holder, key, token, step path) -> the open run's index; a holder runs a path once at a time.
  std::map<std::tuple<std::string, runtime::LeaseKey, runtime::Token, std::string>, std::size_t>
      open;
  const auto close = [&](std::size_t index, std::int64_t at_ns, std::optional<std::uint64_t> event,
                         const std::string& outcome) {
    spans[index]["ended_ns"] = at_ns;
    spans[index]["end_event"] = event ? Json(*event) : Json();
    spans[index]["outcome"] = outcome;
  };
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    if (e.world == sim::WorldEventKind::kNodeCrashed) {
      for (auto it = open.begin(); it != open.end();) {
        if (spans[it->second]["node"] != e.node) {
          ++it;
          continue;
        }
        close(it->second, e.time_ns, e.index, "crashed");
        it = open.erase(it);
      }
    }
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    if (r->kind != EventKind::kStepStarted && r->kind != EventKind::kStepEnded) continue;
    const auto id = std::make_tuple(r->holder, r->key, r->token, r->step);
    if (r->kind == EventKind::kStepStarted) {
      open[id] = spans.size();
      spans.push_back(Json{{"node", e.node},
                           {"holder", r->holder},
                           {"key", runtime::to_string(r->key)},
                           {"token", r->token},
                           {"step", r->step},
                           {"started_ns", e.time_ns},
                           {"event", e.index}});
      continue;
    }
    auto it = open.find(id);
    if (it == open.end()) continue;
    close(it->second, e.time_ns, e.index, r->detail);
    open.erase(it);
  }
  for (const auto& [id, index] : open) close(index, frame.end_ns, std::nullopt, "unfinished");
  return spans;
}

Json write_attempts(const Frame& frame) {
  Json attempts = Json::array();
  // (holder, key, token, step) -> the attempts still waiting for their reply, oldest first.
  std::map<std::tuple<std::string, runtime::LeaseKey, runtime::Token, std::string>,
           std::vector<std::size_t>>
      waiting;
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    const sim::RuntimeRecord* r = properties::runtime_event(e);
    if (r == nullptr) continue;
    const auto id = std::make_tuple(r->holder, r->key, r->token, r->step);
    if (r->kind == EventKind::kWriteSent) {
      // A write call returns at its reply (recorded before it returns), an error or its lease's
      // loss, and a body sends a key again only after the call that sent it returned, its lease
      // still held. So an earlier send of this key still waiting ended in an error, and its reply,
      // if one ever lands, reaches nobody and is never recorded: it waits no more, and the next
      // reply is this send's (swarm seed 6 sends one key five times, 2.5 s apart, and gets one
      // reply 26 ms after the last send; it was drawn as the first send's, 10 s earlier).
      std::vector<std::size_t>& mine = waiting[id];
      const std::string sent_key = r->detail.str();
      std::erase_if(mine, [&](std::size_t earlier) {
        return attempts[earlier]["idempotency_key"].get<std::string>() == sent_key;
      });
      mine.push_back(attempts.size());
      attempts.push_back(Json{{"node", e.node},
                              {"holder", r->holder},
                              {"key", runtime::to_string(r->key)},
                              {"scope_key", r->scope_key},
                              {"token", r->token},
                              {"step", r->step},
                              {"idempotency_key", r->detail},
                              {"t", e.time_ns},
                              {"event", e.index},
                              {"reply", "none"}});
      continue;
    }
    if (r->kind != EventKind::kWriteAccepted && r->kind != EventKind::kWriteRefused) continue;
    auto it = waiting.find(id);
    if (it == waiting.end() || it->second.empty()) continue;
    Json& attempt = attempts[it->second.front()];
    it->second.erase(it->second.begin());
    attempt["reply"] =
        r->kind == EventKind::kWriteRefused ? std::string("refused") : r->detail.str();
    attempt["reply_ns"] = e.time_ns;
    attempt["reply_event"] = e.index;
    attempt["high_water"] = r->value;
  }
  return attempts;
}

}  // namespace fencesim::reports::timeline
