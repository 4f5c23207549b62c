// `fencesim merge --out DIR SHARD_DIR...`: the output folders of a sweep's shards, made into the
// reports an unsharded sweep writes. It refuses (exit 2, one line) shards of different fencesim
// versions or configurations, a shard given twice or missing, and a shard that did not complete;
// every shard is read and checked before anything is written. A shard a signal interrupted is
// merged, and the merge says which of its seeds were not run; the merged reports are marked
// interrupted, and a merge that would pass exits 6 (it did not run what it claims).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <tuple>

#include "cli/commands.h"
#include "cli/parse.h"
#include "cli/sweep_known.h"
#include "cli/sweep_output.h"
#include "reports/claims.h"
#include "reports/interruption.h"
#include "reports/run_record.h"
#include "reports/sweep_config.h"

namespace fencesim::cli {

namespace fs = std::filesystem;

namespace {

struct MergedShard {
  std::string dir;
  reports::SweepManifest manifest;
  std::vector<reports::RunRecord> records;
  std::vector<reports::RunTime> times;
};

// Which part of two configurations differs, for the one line that refuses them.
std::string difference(const reports::SweepConfig& a, const reports::SweepConfig& b) {
  if (a.scenarios != b.scenarios) return "scenarios";
  if (a.seeds_first != b.seeds_first || a.seeds_last != b.seeds_last) return "seeds";
  if (a.budget_ms != b.budget_ms) return "budget";
  if (a.strategies != b.strategies) return "strategies";
  if (a.determinism_every != b.determinism_every) return "determinism-every";
  if (a.sink_double != b.sink_double) return "sink-double";
  // A branching shard beside a plain one, or shards branching at other marks: their runs.jsonl
  // hold different runs (a plain shard has no branch runs), so one summary would mix two sweeps.
  if (a.branch_marks != b.branch_marks) return "branch-at";
  if (a.branches != b.branches) return "branches";
  // A shard of an older fencesim (names' bytes) beside a newer one's: the same history hashes two
  // ways, and the merged distinct-history counts would take it for two.
  return "history hash schemes";
}

MergedShard read_shard(const std::string& dir) {
  if (!fs::is_directory(dir)) {
    throw UsageError(fmt::format("merge: '{}' is not a folder", dir));
  }
  MergedShard shard;
  shard.dir = dir;
  try {
    shard.manifest = reports::read_sweep_manifest(dir + "/sweep.json");
    if (!shard.manifest.completed) {
      throw UsageError(fmt::format(
          "merge: '{}' holds a sweep that did not complete (sweep.json says completed: false)",
          dir));
    }
    shard.records = reports::read_run_records(dir + "/runs.jsonl");
    shard.times = reports::read_run_times(dir + "/run_times.jsonl");
  } catch (const reports::SweepFileError& error) {
    throw UsageError(fmt::format("merge: {}", error.what()));
  }
  check_branching_recorded("merge", dir, shard.manifest.configuration, shard.records);
  return shard;
}

void check_compatible(const MergedShard& first, const MergedShard& other) {
  const reports::SweepManifest& a = first.manifest;
  const reports::SweepManifest& b = other.manifest;
  if (a.fencesim_version != b.fencesim_version) {
    throw UsageError(fmt::format(
        "merge: '{}' was made by fencesim {} and '{}' by fencesim {}; shards merge only from one "
        "version",
        first.dir, a.fencesim_version, other.dir, b.fencesim_version));
  }
  if (!(a.configuration == b.configuration)) {
    throw UsageError(fmt::format("merge: '{}' and '{}' are different sweeps ({} differ)", first.dir,
                                 other.dir, difference(a.configuration, b.configuration)));
  }
  if (a.shard_count != b.shard_count) {
    throw UsageError(fmt::format("merge: '{}' is one of {} shards and '{}' one of {}", first.dir,
                                 a.shard_count, other.dir, b.shard_count));
  }
}

// Every index from 0 to N-1, each from one folder.
std::vector<std::uint64_t> check_indices(const std::vector<MergedShard>& shards) {
  std::map<std::uint64_t, std::string> owner;
  const std::uint64_t count = shards.front().manifest.shard_count;
  for (const MergedShard& shard : shards) {
    for (std::uint64_t index : shard.manifest.shard_indices) {
      if (index >= count) {
        throw UsageError(
            fmt::format("merge: '{}' has shard index {} of {}", shard.dir, index, count));
      }
      const auto [it, fresh] = owner.emplace(index, shard.dir);
      if (!fresh) {
        throw UsageError(fmt::format("merge: shard {}/{} is given twice ('{}' and '{}')", index,
                                     count, it->second, shard.dir));
      }
    }
  }
  for (std::uint64_t index = 0; index < count; ++index) {
    if (!owner.contains(index)) {
      throw UsageError(fmt::format("merge: shard {}/{} is missing", index, count));
    }
  }
  std::vector<std::uint64_t> indices;
  for (const auto& [index, dir] : owner) indices.push_back(index);
  return indices;
}

// A run of the sweep: (scenario, strategy, seed) and, for a branch run, its branch point (mark,
// event, number): the branches of a seed share its seed, and are runs of their own.
using RunKey =
    std::tuple<std::string, std::string, std::uint64_t, std::string, std::uint64_t, std::uint64_t>;

RunKey run_key(const reports::RunRecord& record) {
  if (!record.branch) return {record.scenario, record.strategy, record.seed, "", 0, 0};
  const properties::BranchPoint& at = record.branch->at;
  return {record.scenario, record.strategy, record.seed, at.mark, at.event, at.number};
}

std::string run_name(const reports::RunRecord& record) {
  std::string name = fmt::format("{} {} seed {}", record.scenario, record.strategy, record.seed);
  if (record.branch) {
    const properties::BranchPoint& at = record.branch->at;
    name += fmt::format(" branch {}:{}:{}", at.mark, at.event, at.number);
  }
  return name;
}

// The files each record names (a failure's, and a branch's replay file, in failures/ when it
// failed and branches/ when it passed), as (shard folder, relative path); checked to exist.
std::vector<std::pair<std::string, std::string>> failure_files(const std::vector<MergedShard>& shards) {
  std::vector<std::pair<std::string, std::string>> files;
  std::set<RunKey> seen;
  for (const MergedShard& shard : shards) {
    for (const reports::RunRecord& record : shard.records) {
      if (!seen.insert(run_key(record)).second) {
        throw UsageError(
            fmt::format("merge: {} is in two shards (again in '{}')", run_name(record), shard.dir));
      }
      std::vector<const std::string*> named;
      if (record.failure) {
        const reports::FailureFiles& f = record.failure.value();
        named = {&f.replay, &f.shrunk_replay, &f.timeline, &f.html, &f.perfetto};
      }
      // A failing branch's replay file is its failure's too: copied once.
      const bool own_branch_file =
          record.branch && !record.branch->replay.empty() &&
          !(record.failure && record.failure->replay == record.branch->replay);
      if (own_branch_file) named.push_back(&record.branch->replay);
      for (const std::string* path : named) {
        if (path->empty()) continue;
        const bool inside = path->starts_with("failures/") ||
                            (record.branch && path == &record.branch->replay &&
                             path->starts_with("branches/"));
        if (!inside || path->find("..") != std::string::npos) {
          throw UsageError(
              fmt::format("merge: {}/runs.jsonl names '{}', outside failures/", shard.dir, *path));
        }
        if (!fs::is_regular_file(shard.dir + "/" + *path)) {
          throw UsageError(fmt::format("merge: '{}/{}' is named in {}/runs.jsonl but missing",
                                       shard.dir, *path, shard.dir));
        }
        files.emplace_back(shard.dir, *path);
      }
    }
  }
  return files;
}

// Seeds a merge lists one by one; a shard's span longer than that is kept whole (below).
constexpr std::size_t kMaxListedSeeds = 1'000'000;

// The merged sweep's seeds not run: every shard's, as one list of seeds (and the spans too long
// to list, each as its shard had it). A budget shard's open
// span (its seeds never begun) makes the merged list open from the smallest such seed on.
std::optional<reports::Interruption> merged_interruption(const std::vector<MergedShard>& shards) {
  std::set<std::string> signals;
  std::set<std::uint64_t> seeds;
  std::optional<std::uint64_t> open_from;
  std::vector<reports::SeedSpan> kept;  // spans too long to list seed by seed
  std::optional<std::uint64_t> budget_left_ms;
  for (const MergedShard& shard : shards) {
    const std::optional<reports::Interruption>& stop = shard.manifest.interrupted;
    if (!stop) continue;
    signals.insert(stop->signal);
    const std::uint64_t step = shard.manifest.shard_count;
    for (const reports::SeedSpan& span : stop->seeds_not_run) {
      if (!span.last) {
        open_from = std::min(open_from.value_or(span.first), span.first);
        continue;
      }
      // A shard of a huge range cut early misses most of it: past kMaxListedSeeds its span is kept
      // as it is (every shard-count-th seed) instead of listing each seed.
      const std::uint64_t count = (*span.last - span.first) / step + 1;
      if (count > kMaxListedSeeds - seeds.size()) {
        kept.push_back(span);
        continue;
      }
      for (std::uint64_t seed = span.first; seed <= *span.last; seed += step) {
        seeds.insert(seed);
        if (*span.last - seed < step) break;
      }
    }
    if (stop->budget_left_ms) {
      budget_left_ms = std::max(budget_left_ms.value_or(0), *stop->budget_left_ms);
    }
  }
  if (signals.empty()) return std::nullopt;
  reports::Interruption merged;
  for (const std::string& signal : signals) {
    merged.signal += (merged.signal.empty() ? "" : ", ") + signal;
  }
  std::vector<std::uint64_t> listed;
  for (const std::uint64_t seed : seeds) {
    if (!open_from || seed < *open_from) listed.push_back(seed);
  }
  merged.seeds_not_run = reports::seed_spans(listed, 1);
  for (const reports::SeedSpan& span : kept) {
    if (!open_from || span.first < *open_from) merged.seeds_not_run.push_back(span);
  }
  std::sort(merged.seeds_not_run.begin(), merged.seeds_not_run.end(),
            [](const reports::SeedSpan& a, const reports::SeedSpan& b) { return a.first < b.first; });
  if (open_from) merged.seeds_not_run.push_back(reports::SeedSpan{*open_from, std::nullopt, 1});
  merged.budget_left_ms = budget_left_ms;
  return merged;
}

bool same_folder(const std::string& a, const std::string& b) {
  std::error_code error;
  return fs::exists(a) && fs::exists(b) && fs::equivalent(a, b, error);
}

}  // namespace

int merge_command(const scenarios::ScenarioRegistry& registry, const MergeArgs& args,
                  std::ostream& out, std::ostream& err) {
  if (args.shards.empty()) throw UsageError("merge: give the shards' output folders");
  const FailOn fail_on = parse_fail_on(args.fail_on);
  std::vector<MergedShard> shards;
  for (const std::string& dir : args.shards) {
    if (same_folder(dir, args.out)) {
      throw UsageError(
          fmt::format("--out: '{}' is one of the shards; give a new folder", args.out));
    }
    shards.push_back(read_shard(dir));
  }
  for (const MergedShard& shard : shards) check_compatible(shards.front(), shard);
  reports::SweepManifest merged;
  merged.fencesim_version = shards.front().manifest.fencesim_version;
  merged.configuration = shards.front().manifest.configuration;
  merged.shard_count = shards.front().manifest.shard_count;
  merged.shard_indices = check_indices(shards);
  // What the shards knew, and --known: a group known to any of them is known to the merge.
  for (const MergedShard& shard : shards) {
    if (!shard.manifest.known) continue;
    if (!merged.known) merged.known.emplace();
    merged.known->add(*shard.manifest.known);
  }
  if (!args.known.empty()) {
    if (!merged.known) merged.known.emplace();
    merged.known->add(read_known(registry, args.known));
  }
  const auto files = failure_files(shards);
  merged.interrupted = merged_interruption(shards);
  // Shards run side by side: the merged sweep took as long as its longest shard.
  for (const MergedShard& shard : shards) {
    merged.wall_seconds = std::max(merged.wall_seconds, shard.manifest.wall_seconds);
    merged.runs_cut_by_budget += shard.manifest.runs_cut_by_budget;
  }
  prepare_output_folder("--out", args.out, merged);

  std::error_code created;
  fs::create_directories(args.out + "/failures", created);
  if (created) {
    throw UsageError(
        fmt::format("--out: cannot create '{}/failures': {}", args.out, created.message()));
  }
  for (const auto& [dir, path] : files) {
    std::error_code copied;
    // branches/ for a branching sweep's passing branches; failures/ is there already.
    fs::create_directories(fs::path(args.out + "/" + path).parent_path(), copied);
    if (!copied) {
      fs::copy_file(dir + "/" + path, args.out + "/" + path, fs::copy_options::overwrite_existing,
                    copied);
    }
    if (copied) {
      throw UsageError(
          fmt::format("--out: cannot write '{}/{}': {}", args.out, path, copied.message()));
    }
  }
  std::vector<reports::RunRecord> records;
  std::vector<reports::RunTime> times;
  for (MergedShard& shard : shards) {
    records.insert(records.end(), shard.records.begin(), shard.records.end());
    times.insert(times.end(), shard.times.begin(), shard.times.end());
  }
  const int exit =
      sweep_exit_code(records, fail_on, merged.known ? &*merged.known : nullptr,
                      reports::count_missed(reports::judge_claims(merged.configuration, records)));
  const nlohmann::ordered_json summary = write_reports(args.out, merged, records, times);
  fmt::print(out, "merge: {} shards of {} into {}\n", shards.size(),
             reports::describe_seeds(merged.configuration), args.out);
  for (const MergedShard& shard : shards) {
    if (!shard.manifest.interrupted) continue;
    const reports::Interruption& stop = *shard.manifest.interrupted;
    fmt::print(out, "merge: shard {}/{} ('{}') was interrupted by {}; its seeds not run: {}\n",
               shard.manifest.shard_indices.front(), shard.manifest.shard_count, shard.dir,
               stop.signal, reports::describe_seed_spans(stop.seeds_not_run));
  }
  print_summary_lines(out, summary, args.out);
  fmt::print(out, "reports: {0}/summary.json {0}/summary.md {0}/junit.xml {0}/report.html\n",
             args.out);
  (void)err;
  if (merged.interrupted) {
    fmt::print(out, "merge: incomplete: seeds not run: {} (resume each interrupted shard with "
                    "fencesim sweep --resume, then merge again)\n",
               reports::describe_seed_spans(merged.interrupted->seeds_not_run));
    if (exit == kExitPass) return kExitUnproven;
  }
  return exit;
}

}  // namespace fencesim::cli
