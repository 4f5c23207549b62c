#pragma once
// Branching from rare states (issue 11 section 2; docs/explore.md): when a sweep's run reaches one
// of the --branch-at marks, its worker forks K times at that very event (inside the history's
// hook, properties::RunRequest::on_branch_mark), one child after another, each waited for. Each
// child reseeds the world for its branch number (sim::World::reseed with properties::branch_seed)
// and runs on to the end as an ordinary run: every invariant, its own record in runs.jsonl (with
// `branch`) and its own replay file. The parent run goes on as if nothing happened.
//
// Fork is safe here: the world is one OS thread (Boost.Fiber switches stacks on it; no thread
// pool), the worker holds only its two pipes and its stderr file, and stdio is flushed before the
// fork. A child writes its one answer on the worker's result pipe while the worker waits for it,
// never reads the task pipe, ends with _exit, and dies with its worker (PR_SET_PDEATHSIG).
//
// A branch needs no fork to replay: its replay file names the branch point, and a run of the
// parent seed with RunRequest::branch set reseeds at the same call (properties/run.cpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "properties/run.h"

namespace fencesim::cli {

// "MARK[,MARK...]" checked against the marks the history rules reach and the scenarios' own marks;
// an unknown or repeated name is a UsageError naming it.
std::set<std::string> parse_branch_marks(const scenarios::ScenarioRegistry& registry,
                                         std::string_view text);

// Each of `marks` (read from a sweep.json, say) checked as parse_branch_marks checks a name.
void check_branch_marks(const scenarios::ScenarioRegistry& registry,
                        const std::set<std::string>& marks);

// "MARK:EVENT:N" (a branch of `fencesim run --branch`), the mark checked as above.
properties::BranchPoint parse_branch_point(const scenarios::ScenarioRegistry& registry,
                                           std::string_view option, std::string_view text);

// How many branches a hit makes: 1..kMaxBranches.
inline constexpr std::uint64_t kMaxBranches = 64;
inline constexpr std::uint64_t kDefaultBranches = 8;
std::uint64_t parse_branches(std::string_view text);

// What a forked branch knows of itself.
struct BranchChild {
  properties::BranchPoint at;
  double cpu_started = 0;  // this process's CPU clock at the fork
  std::chrono::steady_clock::time_point forked;
};

// Forks `count` branches of the running world at `mark`, one at a time. In a child it reseeds the
// world for its number and returns the child's description: the caller lets the run go on. In the
// worker it returns nullopt once every branch has ended; `lost` is called for each branch that
// ended without answering (a crash, a signal: its answer was not sent), with how it ended.
// Throws std::runtime_error when fork fails.
std::optional<BranchChild> fork_branches(
    sim::World& world, std::uint64_t seed, const properties::PlacedMark& mark,
    std::uint64_t count,
    const std::function<void(const properties::BranchPoint&, const std::string&)>& lost);

// This process's CPU time (a branch's figure: its own from the fork on, since a forked child's
// CPU clock starts at zero).
double process_cpu_seconds();

}  // namespace fencesim::cli
