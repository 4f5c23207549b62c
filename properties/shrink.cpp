#include "properties/shrink.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "properties/shrink_fields.h"
#include "runtime/check.h"
#include "sim/stack_pool.h"

namespace fencesim::properties {

namespace {

using shrink::Field;
using shrink::fields_of;
using shrink::plan_key;

class Shrinker {
 public:
  Shrinker(const scenarios::ScenarioRegistry& registry, const RunReport& failure,
           std::uint64_t max_runs)
      : registry_(registry), failure_(failure), max_runs_(max_runs), request_(failure.request) {
    if (!request_.stack_pool) request_.stack_pool = std::make_shared<sim::StackPool>();
    result_.plan = failure.plan;
    result_.report = failure;
    for (std::size_t i = 0; i < failure.plan.faults.size(); ++i) numbers_.push_back(i + 1);
  }

  ShrinkResult run() {
    bool changed = true;
    while (changed && budget_left()) {
      changed = remove_faults();
      changed = shrink_values() || changed;
    }
    return std::move(result_);
  }

 private:
  bool budget_left() const { return result_.runs < max_runs_; }

  // Runs `candidate` unless the budget is spent or it ran before; true (and the candidate becomes
  // the result) iff it fails the same way.
  bool try_plan(const sim::FaultPlan& candidate) {
    const std::string key = plan_key(candidate);
    if (auto it = tried_.find(key); it != tried_.end()) return false;  // kept plans are not retried
    if (!budget_left()) return false;
    ++result_.runs;
    RunRequest request = request_;
    request.plan_override = candidate;
    std::optional<RunReport> report;
    try {
      report = run_scenario(registry_, request);
    } catch (const std::exception&) {
      // A plan the harness cannot run (it throws while building the world) fails another way.
    }
    const bool same = report && fails_the_same_way(failure_, *report);
    tried_.emplace(key, same);
    if (same) {
      result_.plan = candidate;
      result_.report = std::move(*report);
    }
    return same;
  }

  // Delta debugging over whole faults: every fault at once, then halves, quarters, ..., singles.
  bool remove_faults() {
    bool any = false;
    std::size_t chunk = result_.plan.faults.size();
    while (chunk >= 1 && !result_.plan.faults.empty() && budget_left()) {
      std::size_t start = 0;
      while (start < result_.plan.faults.size() && budget_left()) {
        const std::size_t end = std::min(start + chunk, result_.plan.faults.size());
        sim::FaultPlan candidate = result_.plan;
        const auto first = candidate.faults.begin();
        candidate.faults.erase(first + static_cast<std::ptrdiff_t>(start),
                               first + static_cast<std::ptrdiff_t>(end));
        const sim::FaultPlan before = result_.plan;
        if (try_plan(candidate)) {
          for (std::size_t i = start; i < end; ++i) {
            result_.removed.push_back(
                fmt::format("removed fault {}: {}", numbers_[i], sim::describe(before.faults[i])));
          }
          numbers_.erase(numbers_.begin() + static_cast<std::ptrdiff_t>(start),
                         numbers_.begin() + static_cast<std::ptrdiff_t>(end));
          any = true;
        } else {
          start = end;
        }
      }
      if (chunk == 1) break;
      chunk = std::min(chunk / 2, result_.plan.faults.size());
    }
    return any;
  }

  bool shrink_values() {
    bool any = false;
    for (std::size_t i = 0; i < result_.plan.faults.size() && budget_left(); ++i) {
      for (const Field& field : fields_of(result_.plan.faults[i])) {
        if (!budget_left()) break;
        any = shrink_field(i, field) || any;
      }
    }
    return any;
  }

  // Binary search for the smallest value on the field's grid that still fails, knowing that the
  // current value does. Failing is not monotonic in a value, so this finds a small failing value,
  // not always the smallest; the search stops at 1/64 of the range to bound the runs per field.
  bool shrink_field(std::size_t index, const Field& field) {
    const std::int64_t current = field.get(result_.plan.faults[index]);
    if (current <= field.lower) return false;
    const auto candidate_with = [&](std::int64_t value) {
      sim::FaultPlan candidate = result_.plan;
      field.set(candidate.faults[index], value);
      return candidate;
    };
    // Grid points lower + k * unit for k in [0, steps]; `high` = steps + 1 stands for `current`.
    const std::int64_t steps = (current - field.lower - 1) / field.unit;
    std::int64_t low = -1;  // no grid point known to pass yet
    std::int64_t high = steps + 1;
    if (try_plan(candidate_with(field.lower))) {
      high = 0;
    } else {
      low = 0;
      const std::int64_t precision = std::max<std::int64_t>(1, (steps + 1) / 64);
      while (high - low > precision && budget_left()) {
        const std::int64_t middle = low + (high - low) / 2;
        if (try_plan(candidate_with(field.lower + middle * field.unit))) {
          high = middle;
        } else {
          low = middle;
        }
      }
    }
    if (high > steps) return false;
    const std::int64_t value = field.lower + high * field.unit;
    check(field.get(result_.plan.faults[index]) == value, "the shrunk value is the kept plan's");
    result_.removed.push_back(fmt::format("fault {}: {} {} -> {}", numbers_[index], field.name,
                                          field.show(current), field.show(value)));
    return true;
  }

  const scenarios::ScenarioRegistry& registry_;
  const RunReport& failure_;
  std::uint64_t max_runs_;
  RunRequest request_;
  ShrinkResult result_;
  std::vector<std::size_t> numbers_;   // each fault of result_.plan's number in the failure's plan
  std::map<std::string, bool> tried_;  // plan_key -> failed the same way
};

}  // namespace

bool fails_the_same_way(const RunReport& failure, const RunReport& candidate) {
  if (candidate.status != failure.status) return false;
  // A liveness failure stuck on something else (another wait, a tree in another state) is another
  // bug: a shrink that kept it would hand the user a failure of a different signature.
  if (failure.status == RunStatus::kLiveness) return candidate.stuck == failure.stuck;
  if (failure.status != RunStatus::kViolation) return true;
  if (failure.violations.empty() || candidate.violations.empty()) {
    return failure.violations.empty() == candidate.violations.empty();
  }
  return candidate.violations.front().invariant == failure.violations.front().invariant;
}

ShrinkResult shrink_failure(const scenarios::ScenarioRegistry& registry, const RunReport& failure,
                            std::uint64_t max_runs) {
  check(failure.status != RunStatus::kPass, "shrink_failure is given a failing run");
  return Shrinker(registry, failure, max_runs).run();
}

}  // namespace fencesim::properties
