#include "stores/sqlite/sqlite_database.h"

#include <fmt/format.h>

#include <exception>

#include "runtime/lease_repository.h"
#include "stores/sqlite/sqlite_schema.h"
#include "stores/store_setup_error.h"

namespace fencesim::stores {

void sqlite_check(sqlite3* db, int code, int expected, std::string_view what) {
  if (code == expected) return;
  throw runtime::StoreUnavailableError(
      fmt::format("SQLite {}: {} ({})", what, sqlite3_errmsg(db), sqlite3_errstr(code)));
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
  sqlite_check(
      db_, sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement_, nullptr),
      SQLITE_OK, "prepare");
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(statement_);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view bytes) {
  // A null pointer would bind SQL NULL: an empty string must stay an empty blob.
  const char* data = bytes.empty() ? "" : bytes.data();
  sqlite_check(
      db_,
      sqlite3_bind_blob(statement_, index, data, static_cast<int>(bytes.size()), SQLITE_TRANSIENT),
      SQLITE_OK, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  sqlite_check(db_, sqlite3_bind_int64(statement_, index, value), SQLITE_OK, "bind");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  sqlite_check(db_, sqlite3_bind_null(statement_, index), SQLITE_OK, "bind");
  return *this;
}

bool SqliteStatement::step() {
  const int code = sqlite3_step(statement_);
  if (code == SQLITE_ROW) return true;
  sqlite_check(db_, code, SQLITE_DONE, "step");
  return false;
}

void SqliteStatement::run() {
  while (step()) {
  }
}

std::string SqliteStatement::blob(int column) const {
  const void* data = sqlite3_column_blob(statement_, column);
  const int size = sqlite3_column_bytes(statement_, column);
  if (data == nullptr) return {};
  return std::string(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(statement_, column);
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

SqliteDatabase::SqliteDatabase(const std::string& path) : path_(path) {
  const int code =
      sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  try {
    if (code != SQLITE_OK) {
      throw StoreSetupError(fmt::format("cannot open SQLite file {}: {}", path,
                                        db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code)));
    }
    // Another process's write transaction holds the lock for milliseconds: wait that long.
    sqlite3_busy_timeout(db_, 5000);
    // The schema first: a file that is not ours is refused before anything of it changes (WAL
    // mode is a persistent change of the file).
    create_or_check_schema();
    execute("PRAGMA journal_mode=WAL");
  } catch (const runtime::StoreUnavailableError& error) {
    sqlite3_close(db_);
    throw StoreSetupError(fmt::format(
        "SQLite file {} cannot be used ({}): pass a new path, or move the file away if it is "
        "corrupt or not a fencesim store, or stop the process that locks it",
        path, error.what()));
  } catch (const StoreSetupError&) {
    sqlite3_close(db_);
    throw;
  }
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close(db_);
}

void SqliteDatabase::execute(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (code != SQLITE_OK) {
    const std::string what = message ? message : sqlite3_errstr(code);
    sqlite3_free(message);
    throw runtime::StoreUnavailableError(fmt::format("SQLite: {}", what));
  }
}

void SqliteDatabase::immediate(const std::function<void()>& body) {
  transaction("BEGIN IMMEDIATE", body);
}

void SqliteDatabase::snapshot(const std::function<void()>& body) {
  transaction("BEGIN", body);
}

void SqliteDatabase::transaction(const char* begin, const std::function<void()>& body) {
  execute(begin);
  try {
    body();
  } catch (...) {
    // Rolling back an open transaction does not fail; its error would hide the first one.
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  execute("COMMIT");
}

void SqliteDatabase::create_or_check_schema() {
  immediate([&] {
    SqliteStatement has_schema(
        db_,
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fencesim_schema'");
    has_schema.step();
    if (has_schema.integer(0) == 0) {
      SqliteStatement tables(db_, "SELECT count(*) FROM sqlite_master");
      tables.step();
      if (tables.integer(0) != 0) {
        throw StoreSetupError(fmt::format(
            "SQLite file {} holds tables that are not a fencesim store: pass a new path", path_));
      }
      execute(kSqliteSchema);
      SqliteStatement version(db_, "INSERT INTO fencesim_schema (version) VALUES (?)");
      version.bind(1, std::int64_t{kSchemaVersion}).run();
      return;
    }
    SqliteStatement version(db_, "SELECT version FROM fencesim_schema");
    const std::int64_t found = version.step() ? version.integer(0) : -1;
    if (found != kSchemaVersion) {
      throw StoreSetupError(fmt::format(
          "SQLite file {} has fencesim schema version {}, this fencesim reads version {}: use the "
          "fencesim that wrote it, or pass a new path",
          path_, found, kSchemaVersion));
    }
  });
}

}  // namespace fencesim::stores
