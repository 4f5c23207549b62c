// Snapshots: what fencesim prints and writes for fixed inputs, every byte of it but the machine's
// measurements (snapshot_text.h), compared with the text kept in cli/tests/snapshots/.
//
// Why: the other tests each assert the few fields their author thought of. A harness bug that
// changes anything else a user reads (a line of a report, a fault's description, a mark's count, a
// replay file's field, a run's history) leaves them all green; the main job's sweep sees only
// failures and unproven claims. A snapshot sees every difference. When a change is meant, the
// snapshots are written again and the difference is read in review:
//
//   FENCESIM_UPDATE_SNAPSHOTS=1 build/ci/cli/cli_tests --gtest_filter='Snapshots/*'
//
// A case runs its commands in a directory of its own holding a copy of specs/, so every path it
// prints is relative and the same on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/tests/command_fixture.h"
#include "cli/tests/snapshot_text.h"
#include "tests/paths.h"

namespace fencesim::cli::testing {
namespace {

struct SnapshotCase {
  std::string name;
  std::vector<std::string> commands;  // fencesim's arguments, run in order (a shell expands them)
  std::vector<std::string> files;     // what the commands wrote that the snapshot keeps
};

void PrintTo(const SnapshotCase& c, std::ostream* out) { *out << c.name; }

std::vector<std::string> every_scenario_run(const std::vector<int>& seeds) {
  std::vector<std::string> commands{"list"};
  // The names come from the binary's own list (read by the case), so a new scenario shows up in
  // the snapshot as a difference to accept.
  for (const int seed : seeds) {
    commands.push_back("__each_scenario__ run --scenario {} --seed " + std::to_string(seed));
  }
  // The sink doubles: the runs where the sink oracles and the reference model speak.
  for (const char* double_kind : {"accept-stale", "non-atomic"}) {
    commands.push_back(std::string("__each_scenario__ run --scenario {} --seed 1 --sink-double ") +
                       double_kind + " --replay-out failed.json");
  }
  return commands;
}

std::vector<SnapshotCase> cases() {
  const std::string failing_sweep =
      "sweep --scenario kleppmann-fencing --seeds 1..3 --jobs 1 --progress-every 1h "
      "--sink-double accept-stale --out out";
  const std::string failure = "out/failures/kleppmann-fencing-pct-d0-1";
  return {
      {"every-scenario", every_scenario_run({1, 2}), {}},
      {"every-spec",
       {"__each_spec__ run --spec {} --seed 1", "__each_spec__ run --spec {} --seed 2",
        "__each_spec__ check-spec {}"},
       {}},
      {"strategies",
       {"run --scenario nightly-mix --seed 3 --strategy pct",
        "run --scenario nightly-mix --seed 3 --strategy pct-d4",
        "run --scenario nightly-mix --seed 3 --strategy drawn",
        "run --scenario swarm --seed 5 --strategy random",
        "run --scenario swarm --seed 6 --json",
        "check-determinism --scenario nightly-mix --seeds 1..3"},
       {}},
      {"trace-kleppmann-fencing",
       {"run --scenario kleppmann-fencing --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-instance-crash-restart",
       {"run --scenario instance-crash-restart --seed 2 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-lease-store-restart",
       {"run --scenario lease-store-restart --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-migration-during-renewal",
       {"run --scenario migration-during-renewal --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-withdrawal-inside-pass",
       {"run --scenario withdrawal-inside-pass --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-fence-scoping",
       {"run --scenario fence-scoping --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-withdrawal-watches-signal",
       {"run --scenario withdrawal-watches-signal --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-withdrawal-outlives-its-pass",
       {"run --scenario withdrawal-outlives-its-pass --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-confirm-then-unchecked-call",
       {"run --scenario confirm-then-unchecked-call --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"trace-yield-deferred-for-sibling",
       {"run --scenario yield-deferred-for-sibling --seed 1 --trace trace.txt"},
       {"trace.txt"}},
      {"failing-run",
       {"run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --html run.html "
        "--perfetto run.perfetto.json --replay-out run.replay.json",
        "replay run.replay.json", "shrink run.replay.json --out shrunk.json",
        "replay shrunk.json",
        // A replay file whose fault was changed: the run diverges from the history on file.
        "__shell__ sed 's/41782032669/30000000000/' run.replay.json >changed.json",
        "replay changed.json",
        "__shell__ sed 's/\"version\": 4/\"version\": 99/' run.replay.json >future.json",
        "replay future.json", "__shell__ head -c 300 run.replay.json >cut.json",
        "replay cut.json"},
       {"run.replay.json", "shrunk.json", "run.perfetto.json", "run.html"}},
      {"failing-sweep",
       {failing_sweep, "corpus run out/failures", "replay " + failure + ".shrunk.replay.json"},
       {"out/summary.md", "out/summary.json", "out/junit.xml", "out/runs.jsonl", "out/sweep.json",
        failure + ".replay.json", failure + ".shrunk.replay.json", failure + ".timeline.json",
        "out/report.html"}},
      {"branching-and-known-sweeps",
       {"sweep --scenario kleppmann-fencing --scenario withdrawal-inside-pass --seeds 1..3 "
        "--jobs 1 --progress-every 1h --branch-at takeover-mid-step --branches 3 --out branched",
        failing_sweep,
        "sweep --scenario kleppmann-fencing --seeds 4..6 --jobs 1 --progress-every 1h "
        "--sink-double accept-stale --known out --fail-on new --out again",
        "sweep --spec specs/double-takeover.toml --seeds 1..4 --jobs 1 --progress-every 1h "
        "--strategy both --out spec"},
       {"branched/summary.md", "branched/runs.jsonl", "again/summary.md", "spec/summary.md"}},
      // Every failure known (--fail-on new), yet marks the scenario declares never reached: the
      // sweep fails on its unproven claims alone.
      {"unproven-claims",
       {"sweep --scenario fenced-in-aggregate --seeds 1..100 --jobs 1 --progress-every 1h "
        "--sink-double accept-stale --out first",
        "sweep --scenario fenced-in-aggregate --seeds 101..200 --jobs 1 --progress-every 1h "
        "--sink-double accept-stale --known first --fail-on new --out second"},
       {"second/summary.md", "second/junit.xml"}},
      {"passing-sweep",
       {"sweep --scenario nightly-mix --scenario swarm --scenario cancel-races-confirm "
        "--seeds 1..6 --jobs 1 --progress-every 1h --out out"},
       {"out/summary.md", "out/summary.json", "out/runs.jsonl"}},
      // Two workers: what a sweep reports does not depend on how its runs were shared out.
      {"two-worker-sweeps",
       {"sweep --scenario nightly-mix --scenario swarm --scenario cancel-races-confirm "
        "--seeds 1..6 --jobs 2 --progress-every 1h --out out",
        // Its failures are printed as the workers end them: the lines are kept sorted.
        "__unordered__ sweep --scenario kleppmann-fencing --scenario completion-in-flight "
        "--seeds 1..4 --jobs 2 --progress-every 1h --sink-double accept-stale --out failing"},
       {"out/summary.md", "out/runs.jsonl", "failing/summary.md", "failing/summary.json",
        "failing/runs.jsonl"}},
      {"sharded-sweep",
       {"sweep --scenario nightly-mix --seeds 1..6 --shard 0/2 --jobs 1 --progress-every 1h "
        "--out a",
        "sweep --scenario nightly-mix --seeds 1..6 --shard 1/2 --jobs 1 --progress-every 1h "
        "--out b",
        "merge a b --out merged"},
       {"merged/summary.md", "merged/runs.jsonl"}},
      {"explore",
       {"explore --scenario explore-write-at-expiry",
        "explore --scenario explore-confirm-stop --bound 1 --sink-double accept-stale --out ex",
        // Cut where its one search has found exactly one failing schedule: still exit 1.
        "explore --scenario explore-confirm-stop --bound 1 --sink-double accept-stale "
        "--no-reduction --max-schedules 315 --keep 1 --out one"},
       {}},
      // Its figures are the machine's (masked); its runs, failures, events and virtual seconds
      // are the seeds' own.
      {"bench", {"bench --seeds 1..2 --switches 1000", "bench --scenario swarm --seeds 3..3 "
                                                       "--switches 1000"},
       {}},
      {"misuse",
       {"run --scenario kleppmann-fencing --seed x", "run --scenario no-such-scenario --seed 1",
        "sweep --scenario nightly-mix --seeds 5..1 --out out", "replay missing.json",
        "check-spec missing.toml"},
       {}},
  };
}

std::string run_in(const std::filesystem::path& dir, const std::string& args,
                   const std::vector<std::string>& names) {
  std::string text;
  // A command whose lines come in an order the run does not fix (a sweep's failures, as its
  // workers end them) is kept with its lines sorted.
  std::string command_text = args;
  bool unordered = false;
  if (command_text.starts_with("__unordered__ ")) {
    unordered = true;
    command_text = command_text.substr(std::string_view("__unordered__ ").size());
  }
  auto one = [&](const std::string& command_args) {
    // A shell command prepares a case's input (edits a file); fencesim runs everything else.
    const bool shell = command_args.starts_with("__shell__ ");
    const std::string program =
        shell ? "" : "'" + fencesim::testing::fencesim_binary() + "' ";
    const std::string shown = shell ? "$ " + command_args.substr(10) : "$ fencesim " + command_args;
    const std::string command = "cd '" + dir.string() + "' && " +
                                (shell ? "(" + command_args.substr(10) + ")"
                                       : program + command_args) +
                                " >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    text += shown + "\nexit " + std::to_string(code) + "\n";
    for (const char* stream : {"out", "err"}) {
      std::string output = read_text(dir / (std::string(stream) + ".txt"));
      if (output.empty()) continue;
      if (unordered) {
        std::vector<std::string> lines = snapshot::lines_of(output);
        std::sort(lines.begin(), lines.end());
        output.clear();
        for (const std::string& line : lines) output += line + "\n";
      }
      text += std::string("--- std") + stream + "\n" + snapshot::mask_text(output);
    }
    std::filesystem::remove(dir / "out.txt");
    std::filesystem::remove(dir / "err.txt");
  };
  const std::size_t hole = command_text.find("{}");
  if (hole == std::string::npos) {
    one(command_text);
    return text;
  }
  const std::string body = command_text.substr(command_text.find(' ') + 1);
  const std::size_t body_hole = body.find("{}");
  for (const std::string& name : names) {
    one(body.substr(0, body_hole) + name + body.substr(body_hole + 2));
  }
  return text;
}

class Snapshots : public CommandTest, public ::testing::WithParamInterface<SnapshotCase> {};

TEST_P(Snapshots, OutputIsAsKept) {
  const SnapshotCase& c = GetParam();
  const std::filesystem::path source = fencesim::testing::source_dir();
  std::filesystem::copy(source / "specs", dir_ / "specs");
  std::vector<std::string> specs;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "specs")) {
    specs.push_back("specs/" + entry.path().filename().string());
  }
  std::sort(specs.begin(), specs.end());
  const std::vector<std::string> scenarios = [&] {
    std::vector<std::string> names;
    for (const std::string& line : snapshot::lines_of(fencesim("list").out)) {
      names.push_back(line.substr(0, line.find(' ')));
    }
    return names;
  }();
  ASSERT_FALSE(scenarios.empty());

  std::string actual = "# snapshot " + c.name + " (cli/tests/snapshot_test.cpp)\n";
  for (const std::string& command : c.commands) {
    const bool each_spec = command.starts_with("__each_spec__");
    const bool each_scenario = command.starts_with("__each_scenario__");
    actual += run_in(dir_, command,
                     each_spec ? specs : each_scenario ? scenarios : std::vector<std::string>{});
  }
  for (const std::string& file : c.files) {
    actual += "=== file " + file + "\n";
    ASSERT_TRUE(exists(file)) << c.name << ": no " << file;
    actual += snapshot::normalize_file(file, read(file));
  }

  const std::filesystem::path kept = source / "cli/tests/snapshots" / (c.name + ".txt");
  if (std::getenv("FENCESIM_UPDATE_SNAPSHOTS") != nullptr) {
    std::ofstream(kept, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(kept))
      << "no snapshot " << kept << ": write it with FENCESIM_UPDATE_SNAPSHOTS=1";
  const snapshot::Difference difference = snapshot::compare(read_text(kept), actual);
  EXPECT_EQ(difference.lines, 0U) << c.name << ": " << difference.lines
                                   << " line(s) differ from " << kept << "; the first at "
                                   << difference.first
                                   << "\nIf the change is meant: FENCESIM_UPDATE_SNAPSHOTS=1 "
                                      "build/ci/cli/cli_tests --gtest_filter='Snapshots/*'";
}

INSTANTIATE_TEST_SUITE_P(Snapshots, Snapshots, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) {
                           std::string name = param_info.param.name;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(SnapshotText, MasksTheMachinesMeasurementsAndKeepsTheRunsFacts) {
  const std::string text =
      "history hash: 9ca1e1622c0d4068\nwall seconds: 0.128\nsteps: 14573\n"
      "kleppmann-fencing: 3 runs, 3 failures, 69947x virtual/wall, 3 distinct histories "
      "(100.0%), 776 distinct per CPU-second\n";
  const std::string masked = snapshot::mask_text(text);
  EXPECT_NE(masked.find("history hash: 9ca1e1622c0d4068"), std::string::npos) << masked;
  EXPECT_NE(masked.find("steps: 14573"), std::string::npos) << masked;
  EXPECT_NE(masked.find("3 distinct histories (100.0%)"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("0.128"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("69947"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("776"), std::string::npos) << masked;
  // A sweep's report line, wherever it is in the output.
  const std::string reports = snapshot::mask_text("reports: out/summary.json (0.9s)\nsweep: 3\n");
  EXPECT_EQ(reports, "reports: out/summary.json (<measured>)\nsweep: 3\n");
}

TEST(SnapshotText, MasksBenchsFiguresAndKeepsItsRuns) {
  const std::string text =
      "fencesim bench: nightly-mix seeds 1..4, one thread, every invariant on, mimalloc 2.0.9; "
      "load average 7.88 7.84 5.98 (2 cores)\n"
      "raw Boost.Fiber switch (round_robin, ping-pong, 2000 switches, each measure the median of "
      "3 and 3 rounds): 53.3 ns (before the runs "
      "50.7, after 55.9)\n"
      "simulator switch: random walk 46.4 ns (before the runs 42.9, after 49.9) = 0.87x "
      "round_robin; PCT 44.6 ns (before the runs 42.7, after 46.4) = 0.84x round_robin (goal <= "
      "1.0x): met\n"
      "nightly-mix random: 4 runs (0 failed), 76336 history events, 875 virtual s in 0.386 s wall "
      "(0.174 s CPU)\n"
      "  virtual/wall 2265x (CPU basis 5038x; goal >= 150000x): MISSED\n"
      "  history events/s 197644 (CPU basis 439492; goal >= 2000000): MISSED\n"
      "  wall per history event 5060 ns = 94.9x a raw fiber switch (goal <= 8x): MISSED\n"
      "PCT wall per history event / random walk's: 1.01x\n"
      "load average after: 7.88 7.84 5.98 (2 cores)\n";
  const std::string masked = snapshot::mask_text(text);
  for (const char* kept : {"nightly-mix seeds 1..4", "2000 switches", "4 runs (0 failed)",
                           "76336 history events", "875 virtual s", "goal >= 150000x",
                           "goal >= 2000000", "goal <= 8x", "goal <= 1.0x"}) {
    EXPECT_NE(masked.find(kept), std::string::npos) << kept << "\n" << masked;
  }
  for (const char* measured :
       {"2.0.9", "7.88", "53.3", "50.7", "55.9", "46.4", "0.87x", "0.84x", "0.386", "0.174",
        "2265", "5038", "197644", "439492", "5060", "94.9", "1.01x", "met", "MISSED"}) {
    EXPECT_EQ(masked.find(measured), std::string::npos) << measured << "\n" << masked;
  }
}

TEST(SnapshotText, MasksOnlyTheMeasuredColumnsOfATable) {
  const std::string markdown =
      "| runs | failed | wall s | seeds / s |\n| --- | --- | --- | --- |\n| 3 | 1 | 0.1 | 20.8 |\n"
      "\n| runs |\n| --- |\n| 7 |\n";
  const std::string masked = snapshot::mask_text(markdown);
  EXPECT_NE(masked.find("| 3 | 1 |"), std::string::npos) << masked;
  EXPECT_NE(masked.find("| 7 |"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("20.8"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("0.1 "), std::string::npos) << masked;

  const std::string html =
      "<table><thead><tr><th>runs</th><th>wall s</th><th>failed</th></tr></thead><tbody>"
      "<tr><td>3</td><td>0.144</td><td>2</td></tr><tr><td>4</td><td>0.5</td><td>0</td></tr>"
      "</tbody></table>\n";
  const std::string page = snapshot::mask_text(html);
  EXPECT_NE(page.find("<td>3</td><td><measured></td><td>2</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>4</td><td><measured></td><td>0</td>"), std::string::npos) << page;
}

TEST(SnapshotText, ADifferenceIsCountedAndTheFirstNamedUnderItsCommand) {
  const std::string kept = "$ fencesim run\nexit 0\nsteps: 4\n=== file t.txt\na\nb\n";
  EXPECT_EQ(snapshot::compare(kept, kept).lines, 0U);
  const snapshot::Difference changed =
      snapshot::compare(kept, "$ fencesim run\nexit 0\nsteps: 5\n=== file t.txt\na\nc\n");
  EXPECT_EQ(changed.lines, 2U);
  EXPECT_EQ(changed.first, "line 3 (under '$ fencesim run'):\n  kept: steps: 4\n  now:  steps: 5");
  // A line gone at the end is a difference too.
  const snapshot::Difference shorter =
      snapshot::compare(kept, "$ fencesim run\nexit 0\nsteps: 4\n=== file t.txt\na\n");
  EXPECT_EQ(shorter.lines, 1U);
  EXPECT_EQ(shorter.first, "line 6 (under '=== file t.txt'):\n  kept: b\n  now:  <end>");
}

TEST(SnapshotText, JsonIsMaskedByKeyAtAnyDepth) {
  const std::string json =
      R"({"runs":3,"wall_seconds":0.14,"totals":{"cpu_seconds":0.003,"failed":1},)"
      R"("mark_hits_per_cpu_second":{"a":775.7}})";
  const std::string masked = snapshot::normalize_file("summary.json", json);
  EXPECT_NE(masked.find("\"runs\": 3"), std::string::npos) << masked;
  EXPECT_NE(masked.find("\"failed\": 1"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("0.14"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("0.003"), std::string::npos) << masked;
  EXPECT_EQ(masked.find("775"), std::string::npos) << masked;
}

}  // namespace
}  // namespace fencesim::cli::testing
