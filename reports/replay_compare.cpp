#include "reports/replay_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace fencesim::reports {

namespace {

std::string event_text(const sim::World& world, std::uint64_t index) {
  const std::vector<sim::HistoryEvent>& events = world.history().events();
  if (index >= events.size()) return "(none)";
  return fmt::format("#{} '{}'", index, sim::describe(events[index], world.node_names()));
}

// Faults that fired when the file was written (any fault, for a file without the counts: a
// shrunk plan keeps only faults that mattered) and never fire now.
std::vector<std::size_t> lost_triggers(const ReplayFile& file,
                                       const std::vector<std::uint64_t>& fired_now) {
  std::vector<std::size_t> lost;
  for (std::size_t i = 0; i < file.plan.faults.size(); ++i) {
    const bool fired_then = !file.history || file.history->faults_fired.at(i) > 0;
    if (fired_then && fired_now.at(i) == 0) lost.push_back(i);
  }
  return lost;
}

std::string divergence_detail(const ReplayFile& file, const sim::World& world,
                              const HistoryRecord& now, std::uint64_t index) {
  const std::uint64_t recorded_events = file.history->events;
  std::string where;
  if (index >= now.events) {
    where = fmt::format("the run now ends after {} events; the recorded one had {}", now.events,
                        recorded_events);
  } else if (index >= recorded_events) {
    where = fmt::format("the recorded run ended after {} events; now event {} follows",
                        recorded_events, event_text(world, index));
  } else {
    where = fmt::format("now {}", event_text(world, index));
  }
  const std::string shared =
      index == 0 ? std::string("no event in common")
                 : fmt::format("last common event {}", event_text(world, index - 1));
  return fmt::format(
      "history changed: first divergent event #{}: {} ({}; {} events now, {} "
      "recorded)",
      index, where, shared, now.events, recorded_events);
}

}  // namespace

std::string_view to_string(HistoryVerdict verdict) {
  switch (verdict) {
    case HistoryVerdict::kSameHistory:
      return "same-history";
    case HistoryVerdict::kTriggerNotReached:
      return "trigger-not-reached";
    case HistoryVerdict::kHistoryChanged:
      return "history-changed";
  }
  return "?";
}

std::optional<std::uint64_t> first_divergence(std::string_view recorded, std::string_view now) {
  const std::size_t common = std::min(recorded.size(), now.size());
  for (std::size_t at = 0; at < common; at += kDigestHexPerEvent) {
    if (recorded.substr(at, kDigestHexPerEvent) != now.substr(at, kDigestHexPerEvent)) {
      return at / kDigestHexPerEvent;
    }
  }
  if (recorded.size() == now.size()) return std::nullopt;
  return common / kDigestHexPerEvent;
}

HistoryComparison compare_history(const ReplayFile& file, const sim::World& world,
                                  std::uint64_t history_hash) {
  HistoryComparison comparison;
  const std::string hash = hash_hex(history_hash);
  const HistoryRecord now = record_history(world.history(), file.plan);
  if (hash == file.expected_history_hash) {
    comparison.detail = fmt::format("same history (hash {}, {} events)", hash, now.events);
    return comparison;
  }
  if (file.history) {
    const std::optional<std::uint64_t> index = first_divergence(file.history->digest, now.digest);
    // Equal digests with another hash: 16-bit digests collided at the divergence (1 in 65,536).
    comparison.first_divergent_event = index;
  }
  const std::vector<std::size_t> lost = lost_triggers(file, now.faults_fired);
  if (!lost.empty()) {
    comparison.verdict = HistoryVerdict::kTriggerNotReached;
    comparison.detail = fmt::format(
        "a fault's trigger is no longer reached: {} of {} fault{} never fired now (first: fault "
        "{}, {}{})",
        lost.size(), file.plan.faults.size(), file.plan.faults.size() == 1 ? "" : "s", lost.front(),
        sim::describe(file.plan.faults[lost.front()]),
        file.history ? fmt::format(", which fired {} time(s) when recorded",
                                   file.history->faults_fired[lost.front()])
                     : std::string());
    if (comparison.first_divergent_event) {
      comparison.detail +=
          fmt::format("; history diverges at event #{}", *comparison.first_divergent_event);
    }
    return comparison;
  }
  comparison.verdict = HistoryVerdict::kHistoryChanged;
  if (!file.history) {
    comparison.detail = fmt::format(
        "history changed: hash {} but the file recorded {}; the file keeps no history record "
        "(schema {}), so the first divergent event is unknown",
        hash, file.expected_history_hash,
        file.migrated_from == 0 ? kReplayVersion : file.migrated_from);
  } else if (!comparison.first_divergent_event) {
    comparison.detail = fmt::format(
        "history changed: hash {} but the file recorded {}, while every event's 16-bit digest "
        "matches ({} events)",
        hash, file.expected_history_hash, now.events);
  } else {
    comparison.detail = divergence_detail(file, world, now, *comparison.first_divergent_event);
  }
  return comparison;
}

}  // namespace fencesim::reports
