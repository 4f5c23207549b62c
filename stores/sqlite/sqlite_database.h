#pragma once
// One SQLite database file (or ":memory:"), opened with the fencesim schema. SQLite is the embedded
// default of every real run: one file, no server.
//
// Isolation: every write goes through `immediate`, a BEGIN IMMEDIATE transaction, which takes the
// database's write lock before its first read. Writers are therefore serialized (SQLite's
// transactions are SERIALIZABLE), so a read-decide-write inside one is atomic across threads and
// processes sharing the file. Readers never block writers (WAL journal).
//
// Not thread-safe: one SqliteDatabase per thread or process; open the same file again elsewhere.
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fencesim::stores {

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters count from 1, as in SQLite. Strings are bound as blobs: every byte kept.
  SqliteStatement& bind(int index, std::string_view bytes);
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind_null(int index);
  // Steps once: true when a row is there to read, false when done.
  bool step();
  // Steps to the end of a statement that returns no rows.
  void run();

  std::string blob(int column) const;
  std::int64_t integer(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

class SqliteDatabase {
 public:
  // Opens `path`, creating the file and the schema if they are absent. Throws StoreSetupError when
  // the file is not a SQLite database, cannot be opened, is locked past the busy timeout, or
  // holds another version's schema.
  explicit SqliteDatabase(const std::string& path);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  SqliteStatement prepare(std::string_view sql) { return SqliteStatement(db_, sql); }
  void execute(std::string_view sql);

  // Runs `body` in a BEGIN IMMEDIATE transaction; commits when it returns, rolls back when it
  // throws. A database locked past the busy timeout throws runtime::StoreUnavailableError.
  void immediate(const std::function<void()>& body);
  // Runs `body` in a deferred (read) transaction: its reads see one snapshot of the file.
  void snapshot(const std::function<void()>& body);

 private:
  void transaction(const char* begin, const std::function<void()>& body);
  void create_or_check_schema();

  std::string path_;
  sqlite3* db_ = nullptr;
};

// Throws runtime::StoreUnavailableError with SQLite's message when `code` is not `expected`.
void sqlite_check(sqlite3* db, int code, int expected, std::string_view what);

}  // namespace fencesim::stores
