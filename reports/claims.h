#pragma once
// What a green sweep claims besides "no run failed": that each scenario reached the marks it
// declares, at their floors (scenarios/mark_floor.h), and that each fault kind its runs scheduled
// acted when it could (properties::FaultKindEffect). A harness that silently stopped testing
// (a mark never counted, a fault that does nothing) would otherwise read exactly like a runtime
// without bugs: a missed claim fails the sweep (exit 6) with a group of its own in every report.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::reports {

enum class ClaimStatus { kMet, kMissed, kNotEnoughRuns };
std::string_view to_string(ClaimStatus status);  // "met", "missed", "not-enough-runs"

struct ClaimVerdict {
  std::string scenario;
  std::string kind;   // "mark" or "fault"
  std::string name;   // the mark, or the fault kind (sim::to_string(FaultKind))
  std::string floor;  // "2%", "reached at all", or "acts when it can" for a fault kind
  // Marks: the scenario's runs (a branch's are its parent's) and how many reached the mark.
  // Faults: the runs in which the kind fired, its faults that could act, and those that acted.
  std::uint64_t runs = 0;
  std::uint64_t chances = 0;  // faults only
  std::uint64_t reached = 0;
  std::uint64_t runs_needed = 0;  // marks only: below it the floor is not judged
  ClaimStatus status = ClaimStatus::kMet;
  // One line: "mark takeover-mid-step: 0 of 1,766 runs, floor 2%".
  std::string message() const;
  friend bool operator==(const ClaimVerdict&, const ClaimVerdict&) = default;
};

// Every claim of the sweep's scenarios, in the configuration's scenario order, marks (in declared
// order) before fault kinds (by name). A pure function of the configuration and the records, so a
// merge of shards judges the same claims as the unsharded sweep.
std::vector<ClaimVerdict> judge_claims(const SweepConfig& config,
                                       const std::vector<RunRecord>& records);

std::uint64_t count_missed(const std::vector<ClaimVerdict>& claims);

nlohmann::ordered_json to_json(const ClaimVerdict& claim);

// 1766 -> "1,766": the claims' messages are read by people.
std::string with_thousands(std::uint64_t value);

}  // namespace fencesim::reports
