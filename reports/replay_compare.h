#pragma once
// What replaying a replay file on this fencesim shows about its history, whichever version wrote
// it (docs/replay-files.md):
//   same-history         the history hash is the recorded one: the run is the same, bit for bit
//   trigger-not-reached  a fault that fired when the file was written never fires now: the moment
//                        it waited for is no longer reached, so the run proves nothing about it
//   history-changed      the run differs from the recorded one; with a history record (schema 2)
//                        the first divergent event is named, with the last event both runs share
// `fencesim replay` prints it; `fencesim corpus run` prints it for every file of a folder.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reports/replay_file.h"
#include "sim/world.h"

namespace fencesim::reports {

enum class HistoryVerdict { kSameHistory, kTriggerNotReached, kHistoryChanged };
std::string_view to_string(HistoryVerdict verdict);

struct HistoryComparison {
  HistoryVerdict verdict = HistoryVerdict::kSameHistory;
  // The index of the first event whose digest differs (or where one run ended); known only for a
  // changed history whose file has a history record.
  std::optional<std::uint64_t> first_divergent_event;
  std::string detail;  // one line
};

// Compares the run just made from `file` (its world, and its history hash) with what the file
// recorded.
HistoryComparison compare_history(const ReplayFile& file, const sim::World& world,
                                  std::uint64_t history_hash);

// The index of the first event at which two digests (4 hex digits an event) differ, or the length
// of the shorter when one is a prefix of the other; nullopt when they are equal.
std::optional<std::uint64_t> first_divergence(std::string_view recorded, std::string_view now);

}  // namespace fencesim::reports
