// `fencesim explore`: systematic exploration of one small world (explore/explorer.h), with and
// without the partial-order reduction, and the failing schedules written as replay files.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <ostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "explore/explorer.h"
#include "reports/replay_file.h"

namespace fencesim::cli {

namespace {

std::string verdict(const explore::ExploreResult& result) {
  if (result.complete) return "complete";
  return fmt::format("incomplete: stopped at {} schedules", result.schedules);
}

std::string violations_text(const explore::ExploreResult& result) {
  std::string text = fmt::format("{} violations", result.failures);
  if (result.by_invariant.empty()) return text;
  text += " (";
  bool first = true;
  for (const auto& [invariant, count] : result.by_invariant) {
    text += fmt::format("{}{} {}", first ? "" : ", ", invariant, count);
    first = false;
  }
  return text + ")";
}

void print_line(std::ostream& out, std::string_view label, const explore::ExploreResult& result) {
  fmt::print(out, "  {:<18} {:>8} schedules  {:>8.2f} s  {}  {}  (covered cut-offs {}, deepest path {})\n",
             label, result.schedules, result.wall_seconds, violations_text(result),
             verdict(result), result.covered_runs, result.deepest_path);
}

}  // namespace

int explore_command(const scenarios::ScenarioRegistry& registry, const ExploreArgs& args,
                    std::ostream& out, std::ostream& err) {
  if (args.scenario.empty()) throw UsageError("--scenario: give the scenario to explore");
  explore::ExploreOptions options;
  options.scenario = args.scenario;
  options.seed = parse_seed("--seed", args.seed);
  const std::uint64_t bound = parse_seed("--bound", args.bound);
  if (bound > 1000) throw UsageError("--bound: at most 1000 delays");
  options.bound = static_cast<int>(bound);
  options.max_schedules = parse_seed("--max-schedules", args.max_schedules);
  if (options.max_schedules == 0) throw UsageError("--max-schedules: must be at least 1");
  options.sink_double = args.sink_double;
  if (!args.sink_double.empty() && args.sink_double != "accept-stale" &&
      args.sink_double != "non-atomic") {
    throw UsageError(
        fmt::format("--sink-double: unknown sink double '{}' (known: accept-stale, non-atomic)",
                    args.sink_double));
  }
  if (registry.find(args.scenario) == nullptr) {
    throw UsageError(fmt::format("unknown scenario '{}' (try 'fencesim list')", args.scenario));
  }
  std::error_code error;
  std::filesystem::create_directories(args.out, error);
  if (error) throw UsageError(fmt::format("--out: cannot make folder '{}'", args.out));

  fmt::print(out, "explore {}: seed {}, delay bound {}, at most {} schedules\n", args.scenario,
             options.seed, options.bound, options.max_schedules);
  out.flush();
  std::uint64_t written = 0;
  const auto keep = [&](const explore::ExploredFailure& failure) {
    if (written >= args.keep) return true;
    reports::ReplayFile file = reports::make_replay_file(failure.report, registry);
    file.choices = failure.choices;
    const std::string path = (std::filesystem::path(args.out) /
                              fmt::format("{}-explore-{}.replay.json", args.scenario,
                                          failure.schedule))
                                 .string();
    try {
      reports::write_replay_file(path, file);
    } catch (const reports::ReplayFileError& e) {
      fmt::print(err, "fencesim: {}\n", e.what());
      return true;
    }
    ++written;
    const std::string why = failure.report.violations.empty()
                                ? std::string(properties::to_string(failure.report.status))
                                : failure.report.violations.front().invariant + ": " +
                                      failure.report.violations.front().message;
    fmt::print(out, "{}   # schedule {}: {}\n", replay_command(path), failure.schedule, why);
    out.flush();
    return true;
  };

  explore::ExploreResult primary;
  std::uint64_t failures = 0;
  if (!args.no_reduction) {
    primary = explore::explore(registry, options, keep);
    print_line(out, "with reduction", primary);
    failures += primary.failures;
  }
  explore::ExploreOptions unreduced = options;
  unreduced.reduce = false;
  const explore::ExploreResult plain =
      explore::explore(registry, unreduced, args.no_reduction ? explore::OnFailure(keep) : nullptr);
  print_line(out, "without reduction", plain);
  failures += plain.failures;
  if (args.no_reduction) primary = plain;
  std::string marks;
  for (const auto& [mark, schedules] : primary.marks) {
    marks += fmt::format("{}{}={}", marks.empty() ? "" : " ", mark, schedules);
  }
  fmt::print(out, "marks (schedules reaching each): {}\n", marks.empty() ? "none" : marks);
  fmt::print(out, "violations: {}\n", primary.failures);
  fmt::print(out, "{}\n", verdict(primary));
  return failures > 0 ? kExitViolation : kExitPass;
}

}  // namespace fencesim::cli
