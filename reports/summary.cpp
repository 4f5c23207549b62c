#include "reports/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "reports/claims.h"
#include "reports/groups.h"
#include "reports/signature.h"

namespace fencesim::reports {

using nlohmann::ordered_json;

namespace {

// A path or a command word that needs no quoting in a POSIX shell.
bool shell_plain(const std::string& text) {
  return !text.empty() && text.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                              "XYZ0123456789-_./+=:,@%") == std::string::npos;
}

std::string shell_quote(const std::string& text) {
  if (shell_plain(text)) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

struct FigureTally {
  std::uint64_t runs_measured = 0;
  std::int64_t total = 0;
  std::int64_t max = 0;
};

struct ScenarioTally {
  std::uint64_t runs = 0;
  std::uint64_t failures = 0;
  std::uint64_t nondeterministic = 0;
  std::uint64_t determinism_reruns = 0;
  double virtual_seconds = 0;
  double wall_seconds = 0;
  double cpu_seconds = 0;
  // The history hashes of the runs: a run whose history another run had already bought nothing
  // new. A worker that died left no hash, and its run counts as not distinct.
  std::set<std::string> histories;
  std::map<std::string, std::uint64_t> marks;
  std::map<std::string, FigureTally> figures;
  // What each fault kind did over the scenario's runs (a branch's are its parent's).
  std::map<std::string, properties::FaultKindEffect> fault_effects;
};

void add(ScenarioTally& tally, const RunRecord& record) {
  ++tally.runs;
  if (!record.passed()) ++tally.failures;
  if (record.nondeterministic()) ++tally.nondeterministic;
  if (record.rerun_history_hash) ++tally.determinism_reruns;
  tally.virtual_seconds += static_cast<double>(record.virtual_ns) / 1e9;
  if (!record.history_hash.empty()) tally.histories.insert(record.history_hash);
  // A branch's marks before its branch point are its parent's, counted in the parent's record.
  for (const auto& [name, count] : record.own_marks()) tally.marks[name] += count;
  if (!record.branch) {
    for (const auto& [kind, effect] : record.fault_effects) {
      properties::FaultKindEffect& sum = tally.fault_effects[kind];
      sum.fired += effect.fired;
      sum.could_act += effect.could_act;
      sum.acted += effect.acted;
    }
  }
  for (const auto& [name, value] : record.figures) {
    FigureTally& figure = tally.figures[name];
    figure.max = figure.runs_measured == 0 ? value : std::max(figure.max, value);
    ++figure.runs_measured;
    figure.total += value;
  }
}

double ratio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0.0;
}

// The distinct-history figures of a set of runs (docs/reports.md): how many histories, the share
// of runs that were distinct, and distinct histories per CPU-second of the runs.
void add_distinct(ordered_json& json, std::uint64_t runs, std::uint64_t distinct,
                  double cpu_seconds) {
  json["distinct_histories"] = distinct;
  json["distinct_fraction"] = ratio(static_cast<double>(distinct), static_cast<double>(runs));
  json["cpu_seconds"] = cpu_seconds;
  json["distinct_per_cpu_second"] = ratio(static_cast<double>(distinct), cpu_seconds);
}

// Every scenario's mark hits together, per CPU-second of every run (branches included, each
// counting only what it reached after its branch point): the figure that says whether branching
// at rare marks (cli/sweep_branch.h) finds them faster than plain runs.
void add_mark_hits(ordered_json& totals, const std::vector<RunRecord>& records,
                   double cpu_seconds) {
  std::map<std::string, std::uint64_t> hits;
  std::uint64_t branch_runs = 0;
  for (const RunRecord& record : records) {
    if (record.branch) ++branch_runs;
    for (const auto& [name, count] : record.own_marks()) hits[name] += count;
  }
  ordered_json counts = ordered_json::object();
  ordered_json rates = ordered_json::object();
  for (const auto& [name, count] : hits) {
    counts[name] = count;
    rates[name] = ratio(static_cast<double>(count), cpu_seconds);
  }
  totals["branch_runs"] = branch_runs;
  totals["mark_hits"] = counts;
  totals["mark_hits_per_cpu_second"] = rates;
}

ordered_json scenario_json(const SweptScenario& scenario, const ScenarioTally& tally) {
  ordered_json marks = ordered_json::object();
  for (const auto& [name, count] : tally.marks) marks[name] = count;
  ordered_json never = ordered_json::array();
  for (const scenarios::MarkFloor& mark : scenario.marks) {
    if (!tally.marks.contains(mark.name)) never.push_back(mark.name);
  }
  ordered_json fault_effects = ordered_json::object();
  for (const auto& [kind, effect] : tally.fault_effects) {
    fault_effects[kind] = ordered_json{
        {"fired", effect.fired}, {"could_act", effect.could_act}, {"acted", effect.acted}};
  }
  ordered_json figures = ordered_json::object();
  for (const auto& [name, figure] : tally.figures) {
    figures[name] = ordered_json{
        {"runs_measured", figure.runs_measured}, {"total", figure.total}, {"max", figure.max}};
  }
  ordered_json json{
      {"name", scenario.name},
      {"description", scenario.description},
      {"runs", tally.runs},
      {"failures", tally.failures},
      {"nondeterministic", tally.nondeterministic},
      {"determinism_reruns", tally.determinism_reruns},
      {"marks", marks},
      {"marks_never_reached", never},
      {"figures", figures},
      {"fault_effects", fault_effects},
      {"wall_seconds", tally.wall_seconds},
      {"seeds_per_second", ratio(static_cast<double>(tally.runs), tally.wall_seconds)},
      {"virtual_per_wall", ratio(tally.virtual_seconds, tally.wall_seconds)}};
  add_distinct(json, tally.runs, tally.histories.size(), tally.cpu_seconds);
  return json;
}

// What the failure is, in two fields: the invariant (or the kind of failure) and why.
std::pair<std::string, std::string> what_failed(const RunRecord& record) {
  if (record.first_violation) {
    return {record.first_violation->invariant, record.first_violation->message};
  }
  if (record.status == "liveness") return {"liveness", record.detail};
  if (record.status == "harness-error") return {"harness", record.detail};
  return {"replay", fmt::format("history hash {} ({}) on the first run, {} ({}) on the re-run in "
                                "another worker",
                                record.history_hash, record.status,
                                record.rerun_history_hash.value_or(""),
                                record.rerun_status.value_or("not sent"))};
}

ordered_json failure_json(const RunRecord& record, const SweepConfig& config) {
  const auto [invariant, message] = what_failed(record);
  const auto path = [](const std::string& p) {
    return p.empty() ? ordered_json() : ordered_json(p);
  };
  const FailureFiles files = record.failure.value_or(FailureFiles{});
  const bool shrunk = !files.shrunk_replay.empty();
  return ordered_json{
      {"scenario", record.scenario},
      {"strategy", record.strategy},
      {"seed", record.seed},
      {"status", record.passed() ? std::string("nondeterministic") : record.status},
      {"signature", record_signature(record)},
      {"group", ""},  // the group's id, set once the groups are made
      {"invariant", invariant},
      {"message", message},
      {"replay_command", failure_command(record, config)},
      {"replay_file", path(files.replay)},
      {"shrunk_replay_file", path(files.shrunk_replay)},
      {"shrunk_faults", shrunk ? ordered_json(files.shrunk_faults) : ordered_json()},
      {"original_faults", record.failure ? ordered_json(files.original_faults) : ordered_json()},
      {"html", path(files.html)},
      {"timeline_file", path(files.timeline)},
      {"perfetto_file", path(files.perfetto)},
      {"note", files.note}};
}

ordered_json group_json(const FailureGroup& group, const std::vector<RunRecord>& records,
                        const std::vector<std::size_t>& failure_index, const SweepConfig& config,
                        bool judged) {
  const RunRecord& first = records[group.first];
  const RunRecord& example = records[group.example];
  const FailureFiles files = example.failure.value_or(FailureFiles{});
  const auto path = [](const std::string& p) {
    return p.empty() ? ordered_json() : ordered_json(p);
  };
  ordered_json members = ordered_json::array();
  for (const std::size_t member : group.members) members.push_back(failure_index[member]);
  const std::string message = what_failed(example).second;
  return ordered_json{
      {"id", group.id},
      {"signature", group.signature},
      {"status", group.status},
      {"kind", group.kind},
      // null without --known: nothing was there to compare with.
      {"known", judged ? ordered_json(group.known) : ordered_json()},
      {"count", group.members.size()},
      {"scenarios", group.scenarios},
      {"strategies", group.strategies},
      {"first",
       ordered_json{
           {"scenario", first.scenario}, {"strategy", first.strategy}, {"seed", first.seed}}},
      {"example",
       ordered_json{
           {"scenario", example.scenario},
           {"strategy", example.strategy},
           {"seed", example.seed},
           {"message", message},
           {"shrunk", group.example_shrunk},
           // null when nothing ran to count them (a worker that died has no plan on record).
           {"faults", group.example_shrunk   ? ordered_json(files.shrunk_faults)
                      : files.replay.empty() ? ordered_json()
                                             : ordered_json(files.original_faults)},
           {"original_faults",
            example.failure ? ordered_json(files.original_faults) : ordered_json()},
           {"replay_command", group.example_shrunk
                                  ? "fencesim replay " + shell_quote(files.shrunk_replay)
                                  : failure_command(example, config)},
           {"replay_file", path(group.example_shrunk ? files.shrunk_replay : files.replay)},
           {"html", path(files.html)},
           {"timeline_file", path(files.timeline)}}},
      {"failures", members}};
}

}  // namespace

std::string failure_command(const RunRecord& record, const SweepConfig& config) {
  if (record.passed()) {
    return fmt::format("fencesim check-determinism --scenario {} --seeds {}..{} --strategy {}",
                       shell_quote(record.scenario), record.seed, record.seed, record.strategy);
  }
  if (record.failure && !record.failure->replay.empty()) {
    return "fencesim replay " + shell_quote(record.failure->replay);
  }
  const auto swept = std::find_if(
      config.scenarios.begin(), config.scenarios.end(),
      [&](const SweptScenario& scenario) { return scenario.name == record.scenario; });
  const bool from_spec = swept != config.scenarios.end() && !swept->spec.empty();
  std::string command = fmt::format(
      "fencesim run {} {} --seed {} --strategy {}", from_spec ? "--spec" : "--scenario",
      shell_quote(from_spec ? swept->spec : record.scenario), record.seed, record.strategy);
  if (!config.sink_double.empty()) command += " --sink-double " + shell_quote(config.sink_double);
  // A branch with no replay file (its process died before it wrote one) is run again from its
  // parent's seed to its branch point: without --branch the command would run the parent.
  if (record.branch) {
    command += fmt::format(" --branch {}:{}:{}", shell_quote(record.branch->at.mark),
                           record.branch->at.event, record.branch->at.number);
  }
  return command;
}

ordered_json sweep_summary(const SweepManifest& manifest, const std::vector<RunRecord>& records,
                           const std::vector<RunTime>& times) {
  const SweepConfig& config = manifest.configuration;
  std::map<std::string, ScenarioTally> tallies;
  for (const SweptScenario& scenario : config.scenarios) tallies[scenario.name];
  std::uint64_t passed = 0, failed = 0, nondeterministic = 0, harness_errors = 0;
  double virtual_seconds = 0;
  ordered_json failures = ordered_json::array();
  std::vector<std::size_t> failure_index(records.size(), 0);  // record -> its place in failures
  for (std::size_t i = 0; i < records.size(); ++i) {
    const RunRecord& record = records[i];
    add(tallies[record.scenario], record);
    virtual_seconds += static_cast<double>(record.virtual_ns) / 1e9;
    if (record.nondeterministic()) ++nondeterministic;
    if (!record.passed()) ++failed;
    if (record.status == "harness-error") ++harness_errors;
    if (record.passed() && !record.nondeterministic()) ++passed;
    if (is_failure(record)) {
      failure_index[i] = failures.size();
      failures.push_back(failure_json(record, config));
    }
  }
  double cpu_seconds = 0;
  std::set<std::string> histories;  // a merge of shards counts a history once, whichever shard ran it
  for (const RunRecord& record : records) {
    if (!record.history_hash.empty()) histories.insert(record.history_hash);
  }
  for (const RunTime& time : times) {
    tallies[time.scenario].wall_seconds += time.wall_seconds;
    tallies[time.scenario].cpu_seconds += time.cpu_seconds;
    cpu_seconds += time.cpu_seconds;
  }

  // Scenarios by name, so that the order does not depend on how --scenario was spelled.
  std::vector<SweptScenario> scenarios = config.scenarios;
  std::sort(scenarios.begin(), scenarios.end(),
            [](const SweptScenario& a, const SweptScenario& b) { return a.name < b.name; });
  const std::vector<ClaimVerdict> claims = judge_claims(config, records);
  ordered_json per_scenario = ordered_json::array();
  for (const SweptScenario& scenario : scenarios) {
    ordered_json entry = scenario_json(scenario, tallies[scenario.name]);
    ordered_json own = ordered_json::array();
    for (const ClaimVerdict& claim : claims) {
      if (claim.scenario == scenario.name) own.push_back(to_json(claim));
    }
    entry["claims"] = own;
    per_scenario.push_back(std::move(entry));
  }
  const double runs = static_cast<double>(records.size());
  ordered_json budget;
  if (config.budget_ms) {
    budget = ordered_json{{"requested_seconds", static_cast<double>(*config.budget_ms) / 1000.0},
                          {"used_seconds", manifest.wall_seconds},
                          {"runs_cut_short", manifest.runs_cut_by_budget}};
  }
  const KnownSignatures* known = manifest.known ? &*manifest.known : nullptr;
  const std::vector<FailureGroup> groups = failure_groups(records, known);
  ordered_json groups_json = ordered_json::array();
  std::uint64_t new_groups = 0;
  for (const FailureGroup& group : groups) {
    groups_json.push_back(group_json(group, records, failure_index, config, known != nullptr));
    for (const std::size_t member : group.members) {
      failures[failure_index[member]]["group"] = group.id;
    }
    if (!group.known) ++new_groups;
  }
  ordered_json known_json;
  if (known) {
    known_json =
        ordered_json{{"sources", known->sources}, {"signatures", known->signatures.size()}};
  }
  // The claims a green sweep makes beyond "no run failed" (reports/claims.h): those it missed
  // fail it, those it ran too few runs to judge are listed apart.
  std::uint64_t met = 0;
  ordered_json missed = ordered_json::array();
  ordered_json not_judged = ordered_json::array();
  for (const ClaimVerdict& claim : claims) {
    if (claim.status == ClaimStatus::kMet) ++met;
    if (claim.status == ClaimStatus::kMissed) missed.push_back(to_json(claim));
    if (claim.status == ClaimStatus::kNotEnoughRuns) not_judged.push_back(to_json(claim));
  }
  ordered_json claims_json{{"met", met},
                           {"missed", missed.size()},
                           {"not_enough_runs", not_judged.size()},
                           {"unproven", missed},
                           {"not_judged", not_judged}};
  ordered_json totals{{"runs", records.size()},
                      {"passed", passed},
                      {"failed", failed},
                      {"nondeterministic", nondeterministic},
                      {"harness_errors", harness_errors},
                      {"groups", groups.size()},
                      {"new_groups", new_groups},
                      {"wall_seconds", manifest.wall_seconds},
                      {"virtual_seconds", virtual_seconds},
                      {"seeds_per_second", ratio(runs, manifest.wall_seconds)}};
  add_distinct(totals, records.size(), histories.size(), cpu_seconds);
  add_mark_hits(totals, records, cpu_seconds);
  // The groups first: how many distinct bugs, which are new, and the smallest example of each.
  return ordered_json{
      {"format", kSummaryFormat},
      {"version", kSummaryVersion},
      {"fencesim_version", manifest.fencesim_version},
      {"known", known_json},
      {"groups", groups_json},
      {"claims", claims_json},
      {"configuration", to_json(config)},
      {"shards",
       ordered_json{{"count", manifest.shard_count}, {"indices", manifest.shard_indices}}},
      {"totals", totals},
      {"budget", budget},
      // SIGINT or SIGTERM stopped the sweep: the seeds not run, and how to continue it.
      {"interrupted", manifest.interrupted ? to_json(*manifest.interrupted) : ordered_json()},
      {"scenarios", per_scenario},
      {"failures", failures}};
}

}  // namespace fencesim::reports
