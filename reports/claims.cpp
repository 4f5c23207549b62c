#include "reports/claims.h"

#include <fmt/format.h>

#include <map>

namespace fencesim::reports {

namespace {

struct MarkTally {
  std::uint64_t runs = 0;
  std::map<std::string, std::uint64_t> reached;  // mark -> runs that reached it
};

struct FaultTally {
  std::uint64_t runs = 0;  // runs in which the kind fired
  std::uint64_t chances = 0;
  std::uint64_t acted = 0;
};

}  // namespace

std::string_view to_string(ClaimStatus status) {
  switch (status) {
    case ClaimStatus::kMet:
      return "met";
    case ClaimStatus::kMissed:
      return "missed";
    case ClaimStatus::kNotEnoughRuns:
      return "not-enough-runs";
  }
  return "missed";
}

std::string with_thousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ClaimVerdict::message() const {
  if (kind == "fault") {
    return fmt::format("fault {}: acted {} of the {} times it could, in {} run{}", name,
                       with_thousands(reached), with_thousands(chances), with_thousands(runs),
                       runs == 1 ? "" : "s");
  }
  std::string text = fmt::format("mark {}: {} of {} runs, floor {}", name,
                                 with_thousands(reached), with_thousands(runs), floor);
  if (status == ClaimStatus::kNotEnoughRuns) {
    text += fmt::format(" (not enough runs to judge: {} needed)", with_thousands(runs_needed));
  }
  return text;
}

std::vector<ClaimVerdict> judge_claims(const SweepConfig& config,
                                       const std::vector<RunRecord>& records) {
  std::map<std::string, MarkTally> marks;
  std::map<std::string, std::map<std::string, FaultTally>> faults;
  for (const RunRecord& record : records) {
    // A branch repeats its parent's run up to its branch point: counting it would count the
    // parent's prefix twice and raise a rate by the branching, not by the scenario.
    if (record.branch) continue;
    MarkTally& tally = marks[record.scenario];
    ++tally.runs;
    for (const auto& [name, count] : record.marks) {
      if (count > 0) ++tally.reached[name];
    }
    for (const auto& [kind, effect] : record.fault_effects) {
      if (effect.fired == 0) continue;
      FaultTally& fault = faults[record.scenario][kind];
      ++fault.runs;
      fault.chances += effect.could_act;
      fault.acted += effect.acted;
    }
  }
  std::vector<ClaimVerdict> claims;
  for (const SweptScenario& scenario : config.scenarios) {
    const MarkTally& tally = marks[scenario.name];
    for (const scenarios::MarkFloor& floor : scenario.marks) {
      ClaimVerdict claim;
      claim.scenario = scenario.name;
      claim.kind = "mark";
      claim.name = floor.name;
      claim.floor = floor.floor_text();
      claim.runs = tally.runs;
      const auto reached = tally.reached.find(floor.name);
      claim.reached = reached == tally.reached.end() ? 0 : reached->second;
      claim.runs_needed = floor.runs_needed();
      if (floor.met_by(claim.reached, claim.runs)) {
        // Met is met however few the runs: a floor reached early needs no more proof.
        claim.status = ClaimStatus::kMet;
      } else if (claim.runs < claim.runs_needed) {
        claim.status = ClaimStatus::kNotEnoughRuns;
      } else {
        claim.status = ClaimStatus::kMissed;
      }
      claims.push_back(std::move(claim));
    }
    for (const auto& [kind, fault] : faults[scenario.name]) {
      ClaimVerdict claim;
      claim.scenario = scenario.name;
      claim.kind = "fault";
      claim.name = kind;
      claim.floor = "acts when it can";
      claim.runs = fault.runs;
      claim.chances = fault.chances;
      claim.reached = fault.acted;
      // A kind that never had a chance proves nothing either way (a partition between two nodes
      // that never talked); one that had chances and never took one does nothing at all.
      claim.status = fault.chances > 0 && fault.acted == 0 ? ClaimStatus::kMissed
                                                           : ClaimStatus::kMet;
      claims.push_back(std::move(claim));
    }
  }
  return claims;
}

std::uint64_t count_missed(const std::vector<ClaimVerdict>& claims) {
  std::uint64_t missed = 0;
  for (const ClaimVerdict& claim : claims) {
    if (claim.status == ClaimStatus::kMissed) ++missed;
  }
  return missed;
}

nlohmann::ordered_json to_json(const ClaimVerdict& claim) {
  nlohmann::ordered_json json{{"scenario", claim.scenario},
                              {"kind", claim.kind},
                              {"name", claim.name},
                              {"floor", claim.floor},
                              {"status", to_string(claim.status)},
                              {"runs", claim.runs},
                              {"reached", claim.reached}};
  if (claim.kind == "mark") {
    json["runs_needed"] = claim.runs_needed;
  } else {
    json["chances"] = claim.chances;
  }
  json["message"] = claim.message();
  return json;
}

}  // namespace fencesim::reports
