#pragma once
// One connection to a PostgreSQL 15 server, using the fencesim tables in one schema (namespace)
// of the database, created on first use.
//
// Isolation: every store call is one READ COMMITTED transaction (`read_committed`) that takes a
// row lock (SELECT ... FOR UPDATE / FOR SHARE) on the row it judges before it reads the server's
// clock and writes: the lock, not the isolation level, is what makes the check and the write one
// atomic step; READ COMMITTED makes every statement after the lock see the newest committed row.
//
// Not thread-safe: one PostgresDatabase per thread or process.
#include <functional>
#include <memory>
#include <pqxx/pqxx>
#include <string>

namespace fencesim::stores {

class PostgresDatabase {
 public:
  // Connects and uses schema `schema_name` (letters, digits, underscores), creating it and its
  // tables if absent. Throws StoreSetupError when the server cannot be reached or the schema is
  // another version's.
  PostgresDatabase(const std::string& connection_string, std::string schema_name = "fencesim");
  ~PostgresDatabase();
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  const std::string& schema_name() const { return schema_name_; }
  // The server process of this connection (pg_stat_activity.pid), for tests that end it.
  int backend_pid() const { return connection_->backendpid(); }

  // Runs `body` in one READ COMMITTED transaction and commits. A lost connection, or a commit
  // whose outcome is unknown, throws runtime::StoreUnavailableError; a deadlock is retried.
  void read_committed(const std::function<void(pqxx::work&)>& body);

  // Drops the schema and everything in it (tests that hand out an empty store per case).
  void drop_schema();

 private:
  void create_or_check_schema();

  std::string schema_name_;
  std::unique_ptr<pqxx::connection> connection_;
};

}  // namespace fencesim::stores
