#include "cli/output.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

#include "reports/replay_file.h"

namespace fencesim::cli {

using json = nlohmann::ordered_json;

std::string configuration_line(const properties::RunRequest& request) {
  std::string line = fmt::format("scenario={} seed={} strategy={}", request.scenario, request.seed,
                                 reports::strategy_name(request));
  if (!request.sink_double.empty()) line += fmt::format(" sink-double={}", request.sink_double);
  if (request.plan_override) line += " plan=replay-file";
  return line + fmt::format(" fencesim={}", reports::fencesim_version());
}

std::string replay_command(const std::string& path) {
  const bool plain =
      !path.empty() && path.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           "-_./+=:,@%") == std::string::npos;
  if (plain) return "fencesim replay " + path;
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "fencesim replay " + quoted + "'";
}

namespace {

std::string marks_text(const std::map<std::string, std::uint64_t>& marks) {
  if (marks.empty()) return "none";
  std::string text;
  for (const auto& [name, count] : marks) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, count);
  }
  return text;
}

}  // namespace

void print_summary(std::ostream& out, const TimedRun& run) {
  const properties::RunReport& report = run.report;
  fmt::print(out, "status: {}\n", properties::to_string(report.status));
  if (!report.detail.empty()) fmt::print(out, "detail: {}\n", report.detail);
  fmt::print(out, "history hash: {}\n", reports::hash_hex(report.history_hash));
  fmt::print(out, "events: {}\n", report.events);
  fmt::print(out, "virtual seconds: {:.3f}\n", static_cast<double>(report.virtual_ns) / 1e9);
  fmt::print(out, "wall seconds: {:.3f}\n", run.wall_seconds);
  fmt::print(out, "steps: {}\n", report.steps);
  fmt::print(out, "faults: {}{}\n", report.plan.faults.size(),
             report.within_assumptions ? "" : " (outside the protocol's assumptions)");
  for (const sim::Fault& fault : report.plan.faults) fmt::print(out, "  {}\n", describe(fault));
  // What each fault that fired did (sim/fault_ledger.h): a fault with chances and no effect is a
  // harness that stopped testing.
  if (!report.fault_effect_lines.empty()) {
    fmt::print(out, "fault effects:\n");
    for (const std::string& line : report.fault_effect_lines) fmt::print(out, "  {}\n", line);
  }
  fmt::print(out, "violations: {}\n", report.violations.size());
  for (const properties::Violation& violation : report.violations) {
    fmt::print(out, "  {}: {}\n", violation.invariant, violation.message);
  }
  fmt::print(out, "marks: {}\n", marks_text(report.marks));
  if (!report.declared_marks.empty()) {
    // One run proves no floor (a sweep judges those, reports/claims.h), but it shows whether this
    // seed reached the moments the scenario is about.
    std::string reached;
    std::string missed;
    std::size_t count = 0;
    for (const scenarios::MarkFloor& mark : report.declared_marks) {
      const auto found = report.marks.find(mark.name);
      if (found != report.marks.end() && found->second > 0) {
        ++count;
        reached += fmt::format(" {}={}", mark.name, found->second);
      } else {
        missed += " " + mark.text();
      }
    }
    fmt::print(out, "declared marks: {} of {} reached{}{}\n", count, report.declared_marks.size(),
               reached.empty() ? "" : ":" + reached,
               missed.empty() ? "" : "; not reached:" + missed);
  }
  if (!report.figures.empty()) {
    std::string figures;
    for (const auto& [name, value] : report.figures) figures += fmt::format(" {}={}", name, value);
    fmt::print(out, "figures:{}\n", figures);
  }
}

json run_json(const TimedRun& run, const std::string& replay_file) {
  const properties::RunReport& report = run.report;
  json violations = json::array();
  for (const properties::Violation& violation : report.violations) {
    violations.push_back(json{{"invariant", violation.invariant},
                              {"message", violation.message},
                              {"events", violation.events}});
  }
  json marks = json::object();
  for (const auto& [name, count] : report.marks) marks[name] = count;
  json figures = json::object();
  for (const auto& [name, value] : report.figures) figures[name] = value;
  json declared = json::array();
  for (const scenarios::MarkFloor& mark : report.declared_marks) {
    const auto found = report.marks.find(mark.name);
    declared.push_back(json{{"mark", mark.name},
                            {"floor", mark.floor_text()},
                            {"reached", found == report.marks.end() ? 0 : found->second}});
  }
  return json{{"fencesim_version", std::string(reports::fencesim_version())},
              {"scenario", report.request.scenario},
              {"seed", report.request.seed},
              {"strategy", reports::strategy_name(report.request)},
              {"sink_double", report.request.sink_double},
              {"status", std::string(properties::to_string(report.status))},
              {"detail", report.detail},
              {"history_hash", reports::hash_hex(report.history_hash)},
              {"events", report.events},
              {"virtual_seconds", static_cast<double>(report.virtual_ns) / 1e9},
              {"wall_seconds", run.wall_seconds},
              {"steps", report.steps},
              {"violations", violations},
              {"marks", marks},
              {"declared_marks", declared},
              {"fault_effects", report.fault_effect_lines},
              {"figures", figures},
              {"within_assumptions", report.within_assumptions},
              {"fault_plan", reports::fault_plan_to_json(report.plan)},
              {"replay_file", replay_file.empty() ? json(nullptr) : json(replay_file)}};
}

}  // namespace fencesim::cli
