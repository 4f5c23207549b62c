#pragma once
// Fresh, empty stores for tests: a SQLite file in its own temporary folder, and a PostgreSQL
// schema of its own on the server named by FENCESIM_POSTGRES (tools/postgres-scratch.sh starts
// one). Both are removed when the last reference goes.
//
// Without FENCESIM_POSTGRES, or with a server that cannot be reached, a PostgreSQL test is skipped
// with one line saying why, unless FENCESIM_REQUIRE_POSTGRES=1 (CI): then it fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "stores/postgres/postgres_database.h"
#include "stores/sqlite/sqlite_database.h"
#include "stores/store_setup_error.h"

namespace fencesim::stores::testing {

inline std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

inline bool postgres_required() {
  return env_or_empty("FENCESIM_REQUIRE_POSTGRES") == "1";
}

// Skips the current test (or fails it, when PostgreSQL is required) with `why`. Call from a
// helper or SetUp: GTEST_SKIP returns from the calling function only.
inline void no_postgres(const std::string& why) {
  if (postgres_required()) {
    ADD_FAILURE() << "PostgreSQL is required (FENCESIM_REQUIRE_POSTGRES=1) but " << why;
    return;
  }
  GTEST_SKIP() << "no PostgreSQL: " << why
               << " (eval \"$(bash tools/postgres-scratch.sh start)\" runs one)";
}

// A unique name for a test's schema: processes (ctest -j) and calls within one never share one.
inline std::string fresh_schema_name() {
  static std::atomic<int> counter{0};
  return "fencesim_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
}

// An empty PostgreSQL store in a schema of its own, dropped at the end; nullptr after
// no_postgres() when there is no server.
inline std::shared_ptr<PostgresDatabase> fresh_postgres() {
  const std::string address = env_or_empty("FENCESIM_POSTGRES");
  if (address.empty()) {
    no_postgres("FENCESIM_POSTGRES is not set");
    return nullptr;
  }
  try {
    return std::shared_ptr<PostgresDatabase>(new PostgresDatabase(address, fresh_schema_name()),
                                             [](PostgresDatabase* database) {
                                               try {
                                                 database->drop_schema();
                                               } catch (const std::exception&) {
                                                 // The server went away: its schema goes with the
                                                 // scratch cluster.
                                               }
                                               delete database;
                                             });
  } catch (const StoreSetupError& error) {
    no_postgres(error.what());
    return nullptr;
  }
}

// A fresh folder under the system's temporary folder, removed at the end.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fencesim-store.XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// An empty SQLite store in a file of its own, removed with its folder at the end.
inline std::shared_ptr<SqliteDatabase> fresh_sqlite() {
  auto folder = std::make_shared<TemporaryFolder>();
  auto* database = new SqliteDatabase((folder->path() / "store.sqlite").string());
  return std::shared_ptr<SqliteDatabase>(database, [folder](SqliteDatabase* db) { delete db; });
}

}  // namespace fencesim::stores::testing
