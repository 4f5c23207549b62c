#pragma once
// What a replay file keeps of its run's history (schema version 2), so that a replay on a later
// fencesim can say where the history first changed and whether the faults still fired: a 16-bit
// digest of the rolling history hash after each event (4 hex digits an event; the first digest
// that differs is the first divergent event, unless 16 bits collide, 1 in 65,536), and how often
// each fault of the plan fired.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/fault.h"
#include "sim/history.h"

namespace fencesim::reports {

struct HistoryRecord {
  std::uint64_t events = 0;
  std::string digest;                       // 4 lower-case hex digits an event, in order
  std::vector<std::uint64_t> faults_fired;  // per fault of the plan, in plan order
  friend bool operator==(const HistoryRecord&, const HistoryRecord&) = default;
};

inline constexpr std::size_t kDigestHexPerEvent = 4;

HistoryRecord record_history(const sim::History& history, const sim::FaultPlan& plan);

// How often each fault of `plan` fired in `history`: a fired fault is a kFaultApplied event whose
// detail is the fault in words (sim::describe), matched as multisets in plan order.
std::vector<std::uint64_t> count_fired(const sim::History& history, const sim::FaultPlan& plan);

}  // namespace fencesim::reports
