#include "cli/sweep_progress.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "cli/output.h"
#include "cli/seconds_between.h"
#include "reports/signature.h"
#include "reports/summary.h"

namespace fencesim::cli {

namespace {

constexpr double kTerminalPeriodSeconds = 0.5;

std::string what_failed(const reports::RunRecord& record) {
  if (record.first_violation) {
    return fmt::format("{} {}: {}", record.status, record.first_violation->invariant,
                       record.first_violation->message);
  }
  return fmt::format("{}: {}", record.status, record.detail);
}

}  // namespace

std::string format_duration(double seconds) {
  const auto total = static_cast<std::uint64_t>(std::max(0.0, seconds) + 0.5);
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

SweepProgress::SweepProgress(std::ostream& out, bool terminal, const SweepPlan& plan,
                             std::optional<std::uint64_t> total_runs, Clock::time_point start)
    : out_(out),
      terminal_(terminal),
      plan_(plan),
      total_runs_(total_runs),
      start_(start),
      period_seconds_(terminal ? kTerminalPeriodSeconds : plan.progress_every_seconds) {
  next_tick_ = start_ + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(period_seconds_));
  for (const reports::SweptScenario& scenario : plan.config.scenarios) {
    marks_expected_ += scenario.marks.size();
  }
}

void SweepProgress::run_done(const reports::RunRecord& record) {
  ++runs_;
  if (!record.passed()) ++failures_;
  const auto& scenarios = plan_.config.scenarios;
  const auto scenario =
      std::find_if(scenarios.begin(), scenarios.end(),
                   [&](const reports::SweptScenario& s) { return s.name == record.scenario; });
  if (scenario == scenarios.end()) return;
  for (const scenarios::MarkFloor& mark : scenario->marks) {
    if (record.marks.contains(mark.name)) marks_hit_.emplace(record.scenario, mark.name);
  }
}

void SweepProgress::print(const std::string& text) {
  if (line_open_) out_ << "\r\033[K";  // clear the progress line; it is drawn again next tick
  line_open_ = false;
  out_ << text << '\n';
  out_.flush();
}

void SweepProgress::failure_found(const reports::RunRecord& record) {
  std::string command = reports::failure_command(record, plan_.config);
  if (record.failure && !record.failure->replay.empty()) {
    command = replay_command((std::filesystem::path(plan_.out) / record.failure->replay).string());
  }
  // The group id ties the line to its group in the closing lines and the reports.
  print(fmt::format("{}\n  {} {} seed {}: {} [group {}]", command, record.scenario, record.strategy,
                    record.seed, what_failed(record),
                    reports::signature_id(reports::record_signature(record))));
}

void SweepProgress::nondeterminism_found(const reports::RunRecord& record) {
  print(
      fmt::format("{}\n  {} {} seed {}: nondeterministic: history hash {} ({}), then {} ({}) in "
                  "another worker{}",
                  reports::failure_command(record, plan_.config), record.scenario, record.strategy,
                  record.seed, record.history_hash, record.status,
                  record.rerun_history_hash.value_or("?"), record.rerun_status.value_or("?"),
                  record.detail.empty() ? "" : " (" + record.detail + ")"));
}

std::string SweepProgress::status_line(Clock::time_point now) const {
  const double elapsed = seconds_between(start_, now);
  const double rate = elapsed > 0 ? static_cast<double>(runs_) / elapsed : 0.0;
  const std::string runs =
      total_runs_ ? fmt::format("{}/{}", runs_, *total_runs_) : fmt::format("{}", runs_);
  std::string line =
      fmt::format("[{}] {} runs ({:.0f}/s), {} failures, marks {}/{}", format_duration(elapsed),
                  runs, rate, failures_, marks_hit_.size(), marks_expected_);
  if (plan_.budgeted()) {
    line += fmt::format(", {} left", format_duration(plan_.budget_seconds() - elapsed));
  } else if (total_runs_ && rate > 0) {
    const double left = static_cast<double>(*total_runs_ - std::min(*total_runs_, runs_)) / rate;
    line += fmt::format(", ETA {}", format_duration(left));
  }
  return line;
}

void SweepProgress::tick(Clock::time_point now) {
  if (now < next_tick_) return;
  next_tick_ = now + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(period_seconds_));
  if (terminal_) {
    out_ << "\r\033[K" << status_line(now);
    line_open_ = true;
  } else {
    out_ << "progress: " << status_line(now) << '\n';
  }
  out_.flush();
}

double SweepProgress::seconds_to_next_tick(Clock::time_point now) const {
  return std::max(0.0, seconds_between(now, next_tick_));
}

void SweepProgress::finish() {
  if (line_open_) out_ << '\n';
  line_open_ = false;
  out_.flush();
}

}  // namespace fencesim::cli
