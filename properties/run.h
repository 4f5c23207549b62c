#pragma once
// One run of a scenario: build its world from the seed, run the safety and quiet phases, check the
// invariants, and count the marks reached. Same request, same binary: same report and history hash.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "properties/invariant.h"
#include "properties/marks.h"
#include "scenarios/scenario.h"

namespace fencesim::properties {

// Bad input from a user (unknown scenario, bad option): the CLI exits 2 with its message.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A branch of a run (a sweep's --branch-at, cli/sweep_branch.h): the run of the request's seed up
// to the event `event` at which it reached `mark`, then, from inside that event's recording, every
// draw of the world from streams of branch_seed(seed, *this) (sim::World::reseed).
struct BranchPoint {
  std::string mark;
  std::uint64_t event = 0;
  std::uint64_t number = 0;  // the branch's number, 1..K
  friend bool operator==(const BranchPoint&, const BranchPoint&) = default;
};
// The sub-seed of a branch: the parent's seed mixed with the mark, its event and the number.
std::uint64_t branch_seed(std::uint64_t seed, const BranchPoint& at);

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
  // Run as this branch of the seed's run (replay files of branches; no fork needed: the run is
  // deterministic up to the mark's event).
  std::optional<BranchPoint> branch;
  // Marks to branch at: `on_branch_mark` is called from inside the run (the history's hook) at
  // each event that reaches one of them, and may reseed the world there (a sweep forks into its
  // branches at that call).
  std::set<std::string> branch_marks;
  std::function<void(sim::World&, const PlacedMark&)> on_branch_mark;
  // How the history hash writes names: a replay file's recorded scheme (an older file's hash was
  // made by the names' bytes), else the current one.
  sim::HistoryHashScheme history_hash_scheme = sim::kCurrentHistoryHashScheme;
};

// What the faults of one kind did in a run (filled from the world's fault-effect records, sim/):
// how many fired, how many had a chance to act (the paused node had fibers or timers due, the cut
// link carried messages, the slowed store was called...), and how many did act (switches missed,
// messages held or dropped, clock moved, calls refused...). A kind whose faults could act across a
// sweep and never did is a harness that stopped testing (reports/claims.h fails the sweep on it).
struct FaultKindEffect {
  std::uint64_t fired = 0;
  std::uint64_t could_act = 0;
  std::uint64_t acted = 0;
  friend bool operator==(const FaultKindEffect&, const FaultKindEffect&) = default;
};

enum class RunStatus { kPass, kViolation, kLiveness, kHarnessError };
std::string_view to_string(RunStatus status);
// The CLI's exit code for a status: 0, 1, 3, 5.
int exit_code(RunStatus status);

struct RunReport {
  RunRequest request;
  RunStatus status = RunStatus::kPass;
  std::string detail;  // why, for liveness and harness errors
  // Liveness: what the run was stuck on, without ids (sim::RunSummary::stuck): what tells two
  // liveness bugs apart (the signature, shrink's "fails the same way").
  std::vector<std::string> stuck;
  std::uint64_t history_hash = 0;
  std::uint64_t events = 0;
  std::int64_t virtual_ns = 0;
  std::uint64_t steps = 0;
  bool within_assumptions = true;  // drift and delays within the protocol's bounds
  sim::FaultPlan plan;             // the plan that ran
  std::vector<Violation> violations;
  std::map<std::string, std::uint64_t> marks;   // dangerous moments reached, with counts
  // The marks the scenario declares (scenarios::Scenario::marks), so that a run can say which of
  // them it reached; their floors are judged by a sweep (reports/claims.h), not by one run.
  std::vector<scenarios::MarkFloor> declared_marks;
  std::map<std::string, std::int64_t> figures;  // what workloads measured (sum_figures)
  std::map<std::string, FaultKindEffect> fault_effects;  // by fault kind (sim::to_string)
  // What each fault did, in the order they were applied (sim::FaultEffect::describe).
  std::vector<std::string> fault_effect_lines;
};

// Whether two runs of one request agree, as a determinism check asks: the same history (its hash)
// and the same verdict (status, and the invariants each violation names, in order). An oracle that
// judges one history two ways is as nondeterministic as a world that runs two histories.
bool runs_agree(const RunReport& first, const RunReport& second);

// The broken sink doubles a run may swap every sink for (RunRequest::sink_double), for --help and
// errors to list: "accept-stale, non-atomic".
std::string sink_double_list();

// Throws UsageError for an unknown scenario or sink double.
RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request);

// As run_scenario, and also hands the finished world to `inspect` before it is destroyed (for
// reports that read the full history).
RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request,
                       const std::function<void(const sim::World&, const RunReport&)>& inspect);

}  // namespace fencesim::properties
