#pragma once
// Which faults of a corpus entry's plan a run fired (`fencesim corpus run`): an entry whose
// failure is gone is fixed only if every fault of its plan still fired; one that no longer meets
// its trigger says nothing about the fix.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sim/fault.h"

namespace fencesim::cli {

// The plan's faults that never fired, in plan order, each in words (sim::describe). `applied`
// counts the run's kFaultApplied events by their detail, the fault in words: the two are matched
// as multisets, so two identical faults of a plan need two firings.
std::vector<std::string> unfired_faults(const sim::FaultPlan& plan,
                                        const std::map<std::string, std::size_t>& applied);

}  // namespace fencesim::cli
