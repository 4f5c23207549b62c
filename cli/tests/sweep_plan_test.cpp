// The order a sweep hands out its runs (seed, then scenario, then strategy), what a shard takes,
// which seeds are re-run for determinism, and the durations and shards the options accept.
#include "cli/sweep_plan.h"

#include <gtest/gtest.h>

#include "cli/parse.h"
#include "cli/sweep_protocol.h"

namespace fencesim::cli::sweep_plan_test {
namespace {

SweepPlan plan(std::optional<std::uint64_t> first, std::optional<std::uint64_t> last,
               Shard shard = {}) {
  SweepPlan p;
  p.config.scenarios = {{"a", "", {}}, {"b", "", {}}};
  p.config.strategies = {"random", "pct"};
  p.config.seeds_first = first;
  p.config.seeds_last = last;
  if (!first) p.config.budget_ms = 1000;
  p.shard = shard;
  return p;
}

std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>> drain(TaskSource& source,
                                                                       std::size_t at_most) {
  std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>> tasks;
  while (!source.exhausted() && tasks.size() < at_most) {
    const SweepTask task = source.next();
    tasks.emplace_back(task.scenario, task.strategy, task.seed);
  }
  return tasks;
}

TEST(TaskSource, EachSeedRunsEveryScenarioAndStrategyBeforeTheNext) {
  const SweepPlan p = plan(5, 6);
  TaskSource source(p);
  EXPECT_EQ(source.total(), 8u);
  using T = std::tuple<std::size_t, std::size_t, std::uint64_t>;
  EXPECT_EQ(
      drain(source, 100),
      (std::vector<T>{
          {0, 0, 5}, {0, 1, 5}, {1, 0, 5}, {1, 1, 5}, {0, 0, 6}, {0, 1, 6}, {1, 0, 6}, {1, 1, 6}}));
  EXPECT_TRUE(source.exhausted());
}

TEST(TaskSource, AShardTakesTheSeedsWhoseIndexMatches) {
  const SweepPlan p = plan(10, 19, Shard{2, 3});  // indices 2, 5, 8: seeds 12, 15, 18
  TaskSource source(p);
  EXPECT_EQ(source.total(), 12u);
  std::vector<std::uint64_t> seeds;
  for (const auto& [scenario, strategy, seed] : drain(source, 100)) {
    if (scenario == 0 && strategy == 0) seeds.push_back(seed);
  }
  EXPECT_EQ(seeds, (std::vector<std::uint64_t>{12, 15, 18}));
}

TEST(TaskSource, AShardPastTheRangeHasNothingAndTheLastSeedDoesNotOverflow) {
  TaskSource empty(plan(1, 2, Shard{2, 3}));
  EXPECT_TRUE(empty.exhausted());
  EXPECT_EQ(empty.total(), 0u);
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  TaskSource top(plan(max - 1, max));
  EXPECT_EQ(drain(top, 100).size(), 8u);
  EXPECT_TRUE(top.exhausted());
}

TEST(TaskSource, ABudgetStartsAtSeedOneAndNeverEnds) {
  TaskSource source(plan(std::nullopt, std::nullopt, Shard{1, 4}));
  EXPECT_FALSE(source.total().has_value());
  const auto tasks = drain(source, 12);
  EXPECT_EQ(std::get<2>(tasks.front()), 2u);
  EXPECT_EQ(std::get<2>(tasks.back()), 10u);
  EXPECT_FALSE(source.exhausted());
}

// A resumed sweep hands out only the runs it has not made, and its total (the progress line's
// "N of M", the ETA) counts only those (red team 32a: a total that still counted the runs made
// before the resume passed every test; only stderr's progress showed it).
TEST(TaskSource, AResumeCountsAndHandsOutOnlyTheRunsNotMadeYet) {
  SweepPlan p = plan(5, 6);
  p.done = {{"a", "random", 5}, {"a", "pct", 5}, {"b", "random", 5}};
  TaskSource source(p);
  EXPECT_EQ(source.total(), 5u);
  using T = std::tuple<std::size_t, std::size_t, std::uint64_t>;
  EXPECT_EQ(drain(source, 100),
            (std::vector<T>{{1, 1, 5}, {0, 0, 6}, {0, 1, 6}, {1, 0, 6}, {1, 1, 6}}));
}

TEST(Determinism, EveryKthSeedFromTheFirstWhateverTheShard) {
  SweepPlan p = plan(3, 100);
  p.config.determinism_every = 10;
  EXPECT_TRUE(rerun_for_determinism(p.config, 3));
  EXPECT_FALSE(rerun_for_determinism(p.config, 4));
  EXPECT_TRUE(rerun_for_determinism(p.config, 13));
  const SweepPlan budget = plan(std::nullopt, std::nullopt);
  EXPECT_TRUE(rerun_for_determinism(budget.config, 1));
  EXPECT_TRUE(rerun_for_determinism(budget.config, 11));
}

TEST(Options, DurationsAndShards) {
  EXPECT_EQ(parse_duration_ms("--budget", "90s"), 90'000u);
  EXPECT_EQ(parse_duration_ms("--budget", "1h30m"), 5'400'000u);
  EXPECT_EQ(parse_duration_ms("--budget", "500ms"), 500u);
  EXPECT_THROW(parse_duration_ms("--budget", "1.5h"), UsageError);
  EXPECT_THROW(parse_duration_ms("--budget", "m"), UsageError);
  EXPECT_THROW(parse_duration_ms("--budget", "99999999999999999999h"), UsageError);
  EXPECT_EQ(parse_shard("--shard", "3/4").index, 3u);
  EXPECT_EQ(parse_shard("--shard", "3/4").count, 4u);
  EXPECT_THROW(parse_shard("--shard", "4/4"), UsageError);
  EXPECT_THROW(parse_shard("--shard", "0/0"), UsageError);
  EXPECT_THROW(parse_shard("--shard", "1/2/3"), UsageError);
}

TEST(Protocol, TasksRoundTripAndMalformedLinesAreRefused) {
  const TaskMessage message{true, 42, SweepTask{3, 1, 18446744073709551615ULL}};
  const auto back = decode_task(encode_task(message));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->rerun);
  EXPECT_EQ(back->id, 42u);
  EXPECT_EQ(back->task.scenario, 3u);
  EXPECT_EQ(back->task.seed, 18446744073709551615ULL);
  EXPECT_FALSE(decode_task("run 1 2 3").has_value());
  EXPECT_FALSE(decode_task("walk 1 2 3 4").has_value());
  EXPECT_FALSE(decode_task("run 1 2 3 4 5").has_value());
  LineBuffer lines;
  lines.append("ab\ncd", 5);
  EXPECT_EQ(lines.next(), "ab");
  EXPECT_FALSE(lines.next().has_value());
  lines.append("\n", 1);
  EXPECT_EQ(lines.next(), "cd");
}

// A run record a worker could send: scenario "a", seed 3, passed.
reports::RunRecord a_passing_record() {
  reports::RunRecord record;
  record.scenario = "a";
  record.strategy = "random";
  record.seed = 3;
  record.status = "pass";
  record.history_hash = "0123456789abcdef";
  return record;
}

// A worker's answer is checked whole before the parent reads a field of it (the engine reads a
// branch's wall_seconds, task_seconds and cpu_seconds as numbers): a branch answer without one of
// them is a broken worker's, refused, as a "done" without its times is.
TEST(Protocol, ABranchAnswerIsRefusedWithoutItsTimes) {
  reports::RunRecord record = a_passing_record();
  record.branch = reports::BranchRecord{{"mark", 7, 2}, {}, ""};
  const nlohmann::json whole{{"type", "branch"},
                             {"id", 4},
                             {"record", reports::to_json(record)},
                             {"wall_seconds", 1.5},
                             {"cpu_seconds", 1.25},
                             {"task_seconds", 2.5}};
  const std::optional<WorkerAnswer> answer = decode_answer(whole.dump());
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->type, "branch");
  EXPECT_EQ(answer->wall_seconds, 1.5);
  EXPECT_EQ(answer->task_seconds, 2.5);
  EXPECT_EQ(answer->cpu_seconds, 1.25);
  for (const char* field : {"wall_seconds", "task_seconds", "cpu_seconds"}) {
    nlohmann::json without = whole;
    without.erase(field);
    EXPECT_FALSE(decode_answer(without.dump()).has_value()) << field;
    without[field] = "soon";
    EXPECT_FALSE(decode_answer(without.dump()).has_value()) << field;
  }
}

// A done answer's CPU time is read when it is a number; a worker of an older binary sent none, and
// its runs count no CPU time (0) rather than making the worker a broken one.
TEST(Protocol, ADoneAnswersCpuTimeIsZeroWhenItSentNone) {
  reports::RunRecord record = a_passing_record();
  const nlohmann::json whole{{"type", "done"},
                             {"id", 4},
                             {"record", reports::to_json(record)},
                             {"wall_seconds", 1.5},
                             {"cpu_seconds", 0.75},
                             {"task_seconds", 2.5}};
  const std::optional<WorkerAnswer> answer = decode_answer(whole.dump());
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->cpu_seconds, 0.75);
  ASSERT_TRUE(answer->record.has_value());
  EXPECT_EQ(answer->record->seed, 3U);
  nlohmann::json older = whole;
  older.erase("cpu_seconds");
  ASSERT_TRUE(decode_answer(older.dump()).has_value());
  EXPECT_EQ(decode_answer(older.dump())->cpu_seconds, 0.0);
}

// A determinism re-run answers with its hash and its verdict; the engine reads both (and the
// violated invariants, for the record's detail), so an answer without one, or with one of another
// type, is a broken worker's.
TEST(Protocol, AReRunAnswerIsRefusedWithoutItsVerdict) {
  const nlohmann::json whole{{"type", "rerun"},
                             {"id", 9},
                             {"history_hash", "0123456789abcdef"},
                             {"status", "violation"},
                             {"violations", {"exactly-once", "per-key-epochs"}}};
  const std::optional<WorkerAnswer> answer = decode_answer(whole.dump());
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->history_hash, "0123456789abcdef");
  EXPECT_EQ(answer->rerun_status, "violation");
  EXPECT_EQ(answer->rerun_violations,
            (std::vector<std::string>{"exactly-once", "per-key-epochs"}));
  for (const char* field : {"history_hash", "status", "violations"}) {
    nlohmann::json without = whole;
    without.erase(field);
    EXPECT_FALSE(decode_answer(without.dump()).has_value()) << field;
    without[field] = 7;
    EXPECT_FALSE(decode_answer(without.dump()).has_value()) << field;
  }
  nlohmann::json odd = whole;
  odd["violations"] = {"exactly-once", 3};
  EXPECT_FALSE(decode_answer(odd.dump()).has_value());
}

// A re-run that threw answers with its error (the record's detail carries it, "determinism re-run:
// ..."): the error is read as text, and an error of another type is a broken worker's answer.
TEST(Protocol, AReRunAnswerCarriesItsErrorAsText) {
  const nlohmann::json whole{{"type", "rerun"},
                             {"id", 9},
                             {"history_hash", ""},
                             {"status", ""},
                             {"violations", nlohmann::json::array()},
                             {"error", "an exception escaped the harness: boom"}};
  const std::optional<WorkerAnswer> answer = decode_answer(whole.dump());
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->error, "an exception escaped the harness: boom");
  nlohmann::json odd = whole;
  odd["error"] = 7;
  EXPECT_FALSE(decode_answer(odd.dump()).has_value());
  odd.erase("error");
  ASSERT_TRUE(decode_answer(odd.dump()).has_value());
  EXPECT_FALSE(decode_answer(odd.dump())->error.has_value());
}

}  // namespace
}  // namespace fencesim::cli::sweep_plan_test
