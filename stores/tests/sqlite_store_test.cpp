// What only the SQLite stores promise beyond the contracts: a file keeps what was committed, a
// file that is not theirs is refused at open with one line, and writers on separate connections
// (threads here, processes in real runs) never share an epoch.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "runtime/observer.h"
#include "runtime/testing/stepped_clock.h"
#include "stores/sqlite/sqlite_checkpoint_store.h"
#include "stores/sqlite/sqlite_lease_repository.h"
#include "stores/sqlite/sqlite_sink.h"
#include "stores/store_setup_error.h"
#include "stores/testing/test_stores.h"

namespace fencesim::stores::sqlite_store_test {
namespace {

using runtime::LeaseKey;
using runtime::TakeStatus;

runtime::NullObserver null_observer;
constexpr runtime::Nanoseconds kTtl = 10 * runtime::kSecond;

TEST(SqliteStores, AReopenedFileKeepsLeasesCheckpointsAndEffects) {
  testing::TemporaryFolder folder;
  const std::string path = (folder.path() / "store.sqlite").string();
  runtime::testing::SteppedClock clock;
  const LeaseKey key{"t", "e"};
  {
    SqliteDatabase database(path);
    SqliteLeaseRepository leases(database, clock, null_observer);
    SqliteCheckpointStore checkpoints(database, null_observer);
    SqliteSink sink(database, "sink", null_observer);
    ASSERT_EQ(leases.take(key, "holder-a", kTtl).lease.token, runtime::Token{1});
    ASSERT_EQ(checkpoints.commit_step(key, 1, "a").status, runtime::CommitStatus::kCommitted);
    ASSERT_EQ(sink.write({"t:e", 1, "k", "payload"}).outcome, runtime::SinkOutcome::kApplied);
  }
  SqliteDatabase database(path);
  SqliteLeaseRepository leases(database, clock, null_observer);
  SqliteCheckpointStore checkpoints(database, null_observer);
  SqliteSink sink(database, "sink", null_observer);
  EXPECT_EQ(leases.read(key)->holder, "holder-a");
  EXPECT_EQ(leases.take(key, "holder-b", kTtl).status, TakeStatus::kHeld);
  EXPECT_EQ(checkpoints.load(key).completed_steps, (std::set<std::string>{"a"}));
  ASSERT_EQ(sink.effects().size(), 1u);
  EXPECT_EQ(sink.effects()[0].payload, "payload");
  EXPECT_EQ(sink.write({"t:e", 1, "k", "again"}).outcome, runtime::SinkOutcome::kDeduplicated);
}

// Opening `path` must throw StoreSetupError whose one-line message contains `expected`.
void expect_refused_at_open(const std::string& path, const std::string& expected) {
  try {
    SqliteDatabase database(path);
    ADD_FAILURE() << path << " was opened";
  } catch (const StoreSetupError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(SqliteStores, AFileThatIsNotADatabaseIsRefusedAndLeftAsItWas) {
  testing::TemporaryFolder folder;
  const std::string path = (folder.path() / "garbage.sqlite").string();
  const std::string garbage(4096, 'x');
  std::ofstream(path) << garbage;
  expect_refused_at_open(path, "move the file away");
  std::ifstream in(path);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, garbage);
}

TEST(SqliteStores, AnotherSchemaVersionOrForeignTablesAreRefused) {
  testing::TemporaryFolder folder;
  const std::string path = (folder.path() / "store.sqlite").string();
  {
    SqliteDatabase database(path);
    database.execute("UPDATE fencesim_schema SET version = 99");
  }
  expect_refused_at_open(path, "schema version 99");

  const std::string foreign = (folder.path() / "foreign.sqlite").string();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE orders (id INTEGER)", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  expect_refused_at_open(foreign, "not a fencesim store");
  // Nothing of the foreign file changed: no fencesim table, and not switched to WAL.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &statement, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(statement, 0), 1);
  sqlite3_finalize(statement);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)), "delete");
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

TEST(SqliteStores, ALockedFileIsRefusedAtOpenAfterTheBusyTimeout) {
  testing::TemporaryFolder folder;
  const std::string path = (folder.path() / "store.sqlite").string();
  SqliteDatabase holder(path);
  holder.execute("BEGIN EXCLUSIVE");
  // A fresh open needs the write lock to check the schema; it waits, then says what to do.
  expect_refused_at_open(path, "stop the process that locks it");
  holder.execute("ROLLBACK");
}

TEST(SqliteStores, ConcurrentTakersOnSeparateConnectionsNeverShareAnEpoch) {
  testing::TemporaryFolder folder;
  const std::string path = (folder.path() / "store.sqlite").string();
  SqliteDatabase{path};  // creates the schema once
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::vector<std::vector<runtime::Token>> granted(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread its own clock: expiry 1 ns, so every round's take finds the lease expired
      // whatever the other threads' clocks say.
      runtime::testing::SteppedClock clock;
      SqliteDatabase database(path);
      SqliteLeaseRepository leases(database, clock, null_observer);
      for (int round = 0; round < kRounds; ++round) {
        clock.advance(runtime::kSecond);
        const auto result = leases.take({"t", "shared"}, "holder-" + std::to_string(t), 1);
        if (result.status == TakeStatus::kTaken)
          granted[static_cast<std::size_t>(t)].push_back(result.lease.token);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<runtime::Token> all;
  std::size_t count = 0;
  for (const auto& tokens : granted) {
    count += tokens.size();
    all.insert(tokens.begin(), tokens.end());
  }
  EXPECT_EQ(all.size(), count) << "an epoch was granted twice";
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(*all.begin(), runtime::Token{1});
  EXPECT_EQ(*all.rbegin(), runtime::Token{count}) << "epochs have a gap";
}

}  // namespace
}  // namespace fencesim::stores::sqlite_store_test
