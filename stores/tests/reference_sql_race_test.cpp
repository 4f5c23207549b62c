// The reference SQL of docs/reference-sql.md under real concurrency: 8 OS processes (fork/exec of
// reference_sql_race_worker) write to the same scope keys with different tokens (fresh, stale,
// equal to the high-water mark), thousands of writes, each sent twice, serialization failures
// retried. Afterwards the tables and the workers' logs are judged here, by rules written apart
// from the SQL under test. The correct variants must pass; each pitfall must fail the same check.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "stores/testing/test_stores.h"
#include "tests/paths.h"

extern char** environ;

namespace fencesim::stores::reference_sql_race_test {
namespace {

constexpr int kWorkers = 8;

struct LoggedWrite {
  std::string scope_key;
  std::int64_t token = 0;
  std::string step;
  int worker = 0;
  std::string outcome;
};

struct RaceOutcome {
  std::vector<std::string> violations;
  std::size_t writes = 0;
  std::size_t refused = 0;
  std::size_t effects = 0;
  long retries = 0;

  bool mentions(const std::string& phrase) const {
    for (const std::string& v : violations) {
      if (v.find(phrase) != std::string::npos) return true;
    }
    return false;
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts the workers together (their stdin closes at once) and waits for them; a worker that has
// not ended after two minutes is killed and reported, so no run hangs.
std::vector<std::string> run_workers(const std::vector<std::vector<std::string>>& argvs) {
  std::vector<std::string> problems;
  int gun[2];
  if (::pipe(gun) != 0) return {"pipe failed"};
  std::vector<pid_t> pids;
  for (const auto& args : argvs) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, gun[0], STDIN_FILENO);
    posix_spawn_file_actions_addclose(&actions, gun[1]);
    std::vector<char*> argv;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0) {
      pids.push_back(pid);
    } else {
      problems.push_back("cannot start " + args[0]);
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  ::close(gun[0]);
  ::close(gun[1]);  // the starting gun
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (const pid_t pid : pids) {
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        problems.push_back("a worker hung and was killed");
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      problems.push_back("worker " + std::to_string(pid) + " failed (status " +
                         std::to_string(status) + ")");
    }
  }
  return problems;
}

// The rules, judged from the effects table, the marks and the workers' logs.
void judge(pqxx::connection& connection, const std::vector<LoggedWrite>& log, RaceOutcome& out) {
  pqxx::work read(connection);
  std::map<std::string, std::int64_t> marks;
  for (const pqxx::row& row : read.exec("SELECT scope_key, token FROM fence_high_water")) {
    marks[row[0].as<std::string>()] = row[1].as<std::int64_t>();
  }
  // (scope key, step) -> effects; per scope key, tokens in commit (effect_id) order.
  std::map<std::pair<std::string, std::string>, int> effects_per_step;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> last;  // scope -> (token, id)
  const pqxx::result effects = read.exec(
      "SELECT effect_id, scope_key, token, payload FROM fence_effects ORDER BY effect_id");
  out.effects = effects.size();
  for (const pqxx::row& row : effects) {
    const auto id = row[0].as<std::int64_t>();
    const std::string scope = row[1].as<std::string>();
    const auto token = row[2].as<std::int64_t>();
    const std::string payload = row[3].as<std::string>();
    const std::string step = payload.substr(0, payload.find('|'));
    auto [previous, inserted] = last.try_emplace(scope, token, id);
    if (!inserted && token < previous->second.first) {
      out.violations.push_back("stale effect committed after a higher one: " + scope + " token " +
                               std::to_string(token) + " (effect " + std::to_string(id) +
                               ") after token " + std::to_string(previous->second.first) +
                               " (effect " + std::to_string(previous->second.second) + ")");
    }
    if (token > previous->second.first) previous->second = {token, id};
    ++effects_per_step[{scope, step}];
  }
  std::map<std::string, std::int64_t> highest_accepted;
  std::map<std::string, std::set<int>> workers_at_mark;  // accepted at the final mark
  std::set<std::pair<std::string, std::string>> acknowledged;
  for (const LoggedWrite& w : log) {
    ++out.writes;
    if (w.outcome == "refused") {
      ++out.refused;
      if (w.token >= marks[w.scope_key]) {
        out.violations.push_back("a token equal to the high-water mark was refused: " +
                                 w.scope_key + " token " + std::to_string(w.token));
      }
      continue;
    }
    acknowledged.insert({w.scope_key, w.step});
    if (w.token == marks[w.scope_key]) workers_at_mark[w.scope_key].insert(w.worker);
    highest_accepted[w.scope_key] = std::max(highest_accepted[w.scope_key], w.token);
  }
  for (const auto& [step, count] : effects_per_step) {
    if (count > 1) {
      out.violations.push_back("idempotency broken: step " + step.second + " of " + step.first +
                               " applied " + std::to_string(count) + " times");
    }
  }
  for (const auto& step : acknowledged) {
    if (effects_per_step[step] == 0) {
      out.violations.push_back("step " + step.second + " of " + step.first +
                               " was acknowledged but has no effect");
    }
  }
  for (const auto& [scope, mark] : marks) {
    if (highest_accepted[scope] != mark) {
      out.violations.push_back("high-water mark of " + scope + " is " + std::to_string(mark) +
                               ", the highest accepted token " +
                               std::to_string(highest_accepted[scope]));
    }
  }
  bool equal_accepted = false;
  for (const auto& [scope, workers] : workers_at_mark) equal_accepted |= workers.size() >= 2;
  if (!equal_accepted) {
    out.violations.push_back(
        "no equal token was accepted: no scope key has writes of two "
        "workers accepted at its high-water token");
  }
  if (out.refused == 0) out.violations.push_back("no stale write was tried: the race is too tame");
}

RaceOutcome race(const std::string& variant, int rounds = 12) {
  RaceOutcome out;
  std::shared_ptr<PostgresDatabase> database = testing::fresh_postgres();
  if (!database) {
    out.violations.push_back("skipped");
    return out;
  }
  const std::string address = testing::env_or_empty("FENCESIM_POSTGRES");
  pqxx::connection connection(address);
  connection.set_variable("search_path", database->schema_name());
  {
    pqxx::work create(connection);
    create.exec(read_file(fencesim::testing::source_dir() + "/stores/sql/reference_schema.sql"));
    create.commit();
  }
  testing::TemporaryFolder logs;
  std::vector<std::vector<std::string>> argvs;
  for (int worker = 0; worker < kWorkers; ++worker) {
    argvs.push_back({fencesim::testing::race_worker(),
                     "--variant",
                     variant,
                     "--worker",
                     std::to_string(worker),
                     "--connection",
                     address,
                     "--schema",
                     database->schema_name(),
                     "--sql",
                     fencesim::testing::source_dir() + "/stores/sql",
                     "--rounds",
                     std::to_string(rounds),
                     "--keys",
                     "4",
                     "--steps",
                     "3",
                     "--gap-us",
                     "200",
                     "--log",
                     (logs.path() / std::to_string(worker)).string()});
  }
  out.violations = run_workers(argvs);
  std::vector<LoggedWrite> log;
  for (int worker = 0; worker < kWorkers; ++worker) {
    std::istringstream lines(read_file((logs.path() / std::to_string(worker)).string()));
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      LoggedWrite w;
      std::string token;
      std::string attempt;
      std::getline(fields, w.scope_key, '\t');
      std::getline(fields, token, '\t');
      if (w.scope_key == "retries") {
        out.retries += std::stol(token);
        continue;
      }
      std::string worker_field;
      std::getline(fields, w.step, '\t');
      std::getline(fields, worker_field, '\t');
      std::getline(fields, attempt, '\t');
      std::getline(fields, w.outcome, '\t');
      w.token = std::stoll(token);
      w.worker = std::stoi(worker_field);
      log.push_back(w);
    }
  }
  judge(connection, log, out);
  return out;
}

std::string describe(const RaceOutcome& out) {
  std::string text = std::to_string(out.writes) + " writes, " + std::to_string(out.refused) +
                     " refused, " + std::to_string(out.effects) + " effects, " +
                     std::to_string(out.retries) + " retries";
  for (std::size_t i = 0; i < out.violations.size() && i < 5; ++i) {
    text += "\n  " + out.violations[i];
  }
  return text;
}

// A correct variant: every rule holds, and the race did what it is for (thousands of writes,
// stale ones among them).
void expect_passes(const std::string& variant) {
  const RaceOutcome out = race(variant);
  if (out.mentions("skipped")) return;
  EXPECT_TRUE(out.violations.empty()) << variant << ": " << describe(out);
  EXPECT_GE(out.writes, 2000u) << describe(out);
  std::cout << "[ race     ] " << variant << ": " << describe(out) << "\n";
}

// A pitfall: the same race and rules must catch it, on the rule named by `phrase`. A race is not
// a schedule: the pitfall's window is open in every write, but a run is allowed three tries to
// land in it.
void expect_caught(const std::string& variant, const std::string& phrase) {
  RaceOutcome out;
  for (int run = 1; run <= 3; ++run) {
    out = race(variant);
    if (out.mentions("skipped")) return;
    if (out.mentions(phrase)) break;
  }
  EXPECT_TRUE(out.mentions(phrase)) << variant << " was not caught: " << describe(out);
  std::cout << "[ race     ] " << variant << " caught: " << describe(out) << "\n";
}

TEST(ReferenceSqlRace, ReadCommittedConditionalUpsertHolds) {
  expect_passes("read-committed");
}

TEST(ReferenceSqlRace, ReadCommittedRowLockHolds) {
  expect_passes("read-committed-row-lock");
}

TEST(ReferenceSqlRace, SerializableWithRetriesHolds) {
  expect_passes("serializable");
}

TEST(ReferenceSqlRace, PitfallCheckAndWriteInTwoTransactionsIsCaught) {
  expect_caught("two-transactions", "stale effect committed after a higher one");
}

TEST(ReferenceSqlRace, PitfallPlainSelectUnderReadCommittedIsCaught) {
  expect_caught("plain-select", "stale effect committed after a higher one");
}

TEST(ReferenceSqlRace, PitfallIdempotencyKeyPerAttemptIsCaught) {
  expect_caught("per-attempt-key", "idempotency broken");
}

}  // namespace
}  // namespace fencesim::stores::reference_sql_race_test

namespace fencesim::stores::reference_sql_race_test {
namespace {

// Not one of the ADR's pitfalls, but the proof that rule 3 bites: a sink that refuses a token
// equal to the mark stops the current holder after its first write.
TEST(ReferenceSqlRace, PitfallRefusingAnEqualTokenIsCaught) {
  expect_caught("refuses-equal-token", "a token equal to the high-water mark was refused");
}

}  // namespace
}  // namespace fencesim::stores::reference_sql_race_test
