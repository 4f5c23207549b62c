#include "properties/run.h"

#include <fmt/format.h>

#include "properties/marks.h"
#include "properties/sink_doubles.h"

namespace fencesim::properties {

namespace {
// How long a non-atomic sink double's write lands after its check: long enough that a takeover's
// write (ttl 30 s, renewals every 10 s) can be checked in between.
constexpr std::int64_t kNonAtomicWriteDelayNs = 5 * runtime::kSecond;
}  // namespace

bool runs_agree(const RunReport& first, const RunReport& second) {
  if (first.history_hash != second.history_hash || first.status != second.status) return false;
  if (first.violations.size() != second.violations.size()) return false;
  for (std::size_t i = 0; i < first.violations.size(); ++i) {
    if (first.violations[i].invariant != second.violations[i].invariant) return false;
  }
  return true;
}

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return "pass";
    case RunStatus::kViolation:
      return "violation";
    case RunStatus::kLiveness:
      return "liveness";
    case RunStatus::kHarnessError:
      return "harness-error";
  }
  return "unknown";
}

std::uint64_t branch_seed(std::uint64_t seed, const BranchPoint& at) {
  const std::string name = fmt::format("branch/{}/{}/{}", at.mark, at.event, at.number);
  return sim::derive_stream(seed, name).next();
}

namespace {

// Watches the history for the request's branch marks, and for its own branch point: there the
// world is reseeded for the branch, as the forked branch of a sweep was at the same call.
class BranchWatch {
 public:
  BranchWatch(sim::World& world, const RunRequest& request) : world_(world), request_(request) {
    std::set<std::string> watched = request.branch_marks;
    if (request.branch) watched.insert(request.branch->mark);
    detector_.emplace(world, std::move(watched));
    world.set_history_hook([this](const sim::HistoryEvent& e) { observe(e); });
  }
  ~BranchWatch() { world_.set_history_hook(nullptr); }
  BranchWatch(const BranchWatch&) = delete;
  BranchWatch& operator=(const BranchWatch&) = delete;

  // Whether the request's branch point was reached (always true without one).
  bool reached() const { return !request_.branch || reached_; }

 private:
  void observe(const sim::HistoryEvent& e) {
    placed_.clear();
    detector_->observe(e, placed_);
    for (const PlacedMark& mark : placed_) {
      if (request_.branch && !reached_ && mark.name == request_.branch->mark &&
          mark.event == request_.branch->event) {
        reached_ = true;
        world_.reseed(branch_seed(request_.seed, *request_.branch));
      }
      if (request_.on_branch_mark && request_.branch_marks.contains(mark.name)) {
        request_.on_branch_mark(world_, mark);
      }
    }
  }

  sim::World& world_;
  const RunRequest& request_;
  std::optional<MarkDetector> detector_;
  std::vector<PlacedMark> placed_;
  bool reached_ = false;
};

}  // namespace

int exit_code(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return 0;
    case RunStatus::kViolation:
      return 1;
    case RunStatus::kLiveness:
      return 3;
    case RunStatus::kHarnessError:
      return 5;
  }
  return 5;
}

std::string sink_double_list() { return "accept-stale, non-atomic"; }

RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request) {
  return run_scenario(registry, request, nullptr);
}

RunReport run_scenario(const scenarios::ScenarioRegistry& registry, const RunRequest& request,
                       const std::function<void(const sim::World&, const RunReport&)>& inspect) {
  const scenarios::Scenario* scenario = registry.find(request.scenario);
  if (!scenario) {
    throw UsageError(fmt::format("unknown scenario '{}' (try 'fencesim list')", request.scenario));
  }
  sim::WorldOptions options;
  options.seed = request.seed;
  options.strategy = request.strategy;
  options.pct_change_points = request.pct_change_points;
  options.keep_events = true;  // the checkers read them
  options.history_hash_scheme = request.history_hash_scheme;
  options.stack_pool = request.stack_pool;
  sim::World* built = nullptr;  // the world the sinks of a double live in, once it exists
  if (request.sink_double == "accept-stale") {
    options.sink_factory = [](const std::string& name, runtime::Observer& observer) {
      return std::make_unique<StaleAcceptingSink>(name, observer);
    };
  } else if (request.sink_double == "non-atomic") {
    options.sink_factory = [&built](const std::string& name, runtime::Observer& observer) {
      return std::make_unique<NonAtomicSink>(name, observer, built->scheduler(),
                                             kNonAtomicWriteDelayNs);
    };
  } else if (!request.sink_double.empty()) {
    throw UsageError(fmt::format("unknown sink double '{}' (known: {})", request.sink_double,
                                 sink_double_list()));
  }
  if (scenario->configure) scenario->configure(options);

  RunReport report;
  report.request = request;
  sim::World world(options);
  built = &world;
  scenario->build(world);
  if (request.plan_override) world.set_fault_plan(*request.plan_override);
  report.plan = world.fault_plan();
  report.within_assumptions = world.within_assumptions();

  std::optional<BranchWatch> watch;
  if (request.branch || !request.branch_marks.empty()) watch.emplace(world, request);
  const sim::RunSummary summary = world.run();
  const bool branch_reached = !watch || watch->reached();
  watch.reset();
  report.virtual_ns = summary.virtual_ns;
  report.steps = summary.steps;
  report.history_hash = world.history().hash();
  report.events = world.history().size();
  for (const auto& invariant : default_invariants()) invariant->check(world, report.violations);
  report.marks = count_marks(world);
  for (const sim::FaultEffect& effect : world.fault_effects()) {
    FaultKindEffect& kind = report.fault_effects[std::string(sim::to_string(effect.kind))];
    ++kind.fired;
    if (effect.could_act()) ++kind.could_act;
    if (effect.acted()) ++kind.acted;
    report.fault_effect_lines.push_back(effect.describe(world.node_names()));
  }
  report.declared_marks = scenario->marks;
  report.figures = sum_figures(world);
  if (!branch_reached) {
    // The run never reached the event it branches at (another fencesim, or a hand-edited file):
    // it is not the branch that was asked for.
    report.status = RunStatus::kHarnessError;
    report.detail = fmt::format("seed {}: the branch point was not reached (mark {} at event {})",
                                request.seed, request.branch->mark, request.branch->event);
  } else if (summary.outcome == sim::RunOutcome::kHarnessError) {
    report.status = RunStatus::kHarnessError;
    report.detail = fmt::format("seed {}: {}", request.seed, summary.detail);
  } else if (!report.violations.empty()) {
    report.status = RunStatus::kViolation;
  } else if (summary.outcome == sim::RunOutcome::kLiveness && report.within_assumptions) {
    report.status = RunStatus::kLiveness;
    report.detail = summary.detail;
    report.stuck = summary.stuck;
  } else {
    // Outside the protocol's assumptions, liveness is not judged.
    report.status = RunStatus::kPass;
    report.detail = summary.detail;
  }
  if (inspect) inspect(world, report);
  return report;
}

}  // namespace fencesim::properties
