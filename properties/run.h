#pragma once
// One run of a scenario: build its world from the seed, run the safety and quiet phases, check the
// invariants, and count the marks reached. Same request, same binary: same report and history hash.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/invariant.h"
#include "scenarios/scenario.h"

namespace fencesim::properties {

// Bad input from a user (unknown scenario, bad option): the CLI exits 2 with its message.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RunRequest {
  std::string scenario;
  std::uint64_t seed = 1;
  sim::Strategy strategy = sim::Strategy::kRandomWalk;
  // Replaces the plan the scenario draws (replay files, shrinking).
  std::optional<sim::FaultPlan> plan_override;
  // A test double for every sink: "" (the runtime's sink), "accept-stale" (a broken sink that
  // never refuses a token) or "non-atomic" (checks, then writes later): the harness must catch both.
  std::string sink_double;
  bool keep_events = true;
  std::shared_ptr<sim::StackPool> stack_pool;
  // PCT's change points (its bug depth less one); only read under kPct. Named in files and on the
  // command line as "pct" for 3 and "pct-dN" otherwise (reports::strategy_name).
  int pct_change_points = 3;
};

enum class RunStatus { kPass, kViolation, kLiveness, kHarnessError };
std::string_view to_string(RunStatus status);
// The CLI's exit code for a status: 0, 1, 3, 5.
int exit_code(RunStatus status);

struct RunReport {
  RunRequest request;
  RunStatus status = RunStatus::kPass;
  std::string detail;  // why, for liveness and harness errors
  std::uint64_t history_hash = 0;
  std::uint64_t events = 0;
  std::int64_t virtual_ns = 0;
  std::uint64_t steps = 0;
  bool within_assumptions = true;  // drift and delays within the protocol's bounds
  sim::FaultPlan plan;             // the plan that ran
  std::vector<Violation> violations;
  std::map<std::string, std::uint64_t> marks;   // dangerous moments reached, with counts
  std::map<std::string, std::int64_t> figures;  // what workloads measured (sum_figures)
};

// Throws UsageError for an unknown scenario or sink double.
RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request);

// As run_scenario, and also hands the finished world to `inspect` before it is destroyed (for
// reports that read the full history).
RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request,
                       const std::function<void(const sim::World&, const RunReport&)>& inspect);

}  // namespace fencesim::properties
