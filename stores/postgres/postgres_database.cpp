#include "stores/postgres/postgres_database.h"

#include <fmt/format.h>

#include "runtime/lease_repository.h"
#include "stores/postgres/postgres_schema.h"
#include "stores/store_setup_error.h"

namespace fencesim::stores {
namespace {

// The first line of a libpq message: it may span lines, a StoreSetupError is one.
std::string first_line(const std::string& message) {
  const auto end = message.find('\n');
  return end == std::string::npos ? message : message.substr(0, end);
}

bool is_identifier(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return !(name[0] >= '0' && name[0] <= '9');
}

}  // namespace

PostgresDatabase::PostgresDatabase(const std::string& connection_string, std::string schema_name)
    : schema_name_(std::move(schema_name)) {
  if (!is_identifier(schema_name_)) {
    throw StoreSetupError(fmt::format(
        "PostgreSQL schema name '{}' is not a lowercase identifier: use letters, digits and _",
        schema_name_));
  }
  try {
    connection_ = std::make_unique<pqxx::connection>(connection_string);
  } catch (const pqxx::broken_connection& error) {
    throw StoreSetupError(fmt::format(
        "cannot reach PostgreSQL at '{}': {}; start a server (tools/postgres-scratch.sh start) or "
        "fix the connection string",
        connection_string, first_line(error.what())));
  }
  create_or_check_schema();
}

PostgresDatabase::~PostgresDatabase() = default;

void PostgresDatabase::create_or_check_schema() {
  try {
    pqxx::work work(*connection_);
    // Processes opening the same store at once create it once: the advisory lock serializes them.
    work.exec_params("SELECT pg_advisory_xact_lock(hashtext($1))", schema_name_);
    work.exec("CREATE SCHEMA IF NOT EXISTS " + schema_name_);
    work.exec("SET LOCAL search_path TO " + schema_name_);
    const pqxx::result exists = work.exec_params(
        "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'fencesim_schema'",
        schema_name_);
    if (exists.empty()) {
      work.exec(kPostgresSchema);
      work.exec_params("INSERT INTO fencesim_schema (version) VALUES ($1)", kSchemaVersion);
    } else {
      const pqxx::result version = work.exec("SELECT version FROM fencesim_schema");
      const int found = version.empty() ? -1 : version[0][0].as<int>();
      if (found != kSchemaVersion) {
        throw StoreSetupError(fmt::format(
            "PostgreSQL schema {} has fencesim schema version {}, this fencesim reads version {}: "
            "use the fencesim that wrote it, or another schema",
            schema_name_, found, kSchemaVersion));
      }
    }
    work.commit();
    connection_->set_variable("search_path", schema_name_);
  } catch (const pqxx::broken_connection& error) {
    throw StoreSetupError(fmt::format("PostgreSQL connection lost while opening the store: {}",
                                      first_line(error.what())));
  } catch (const pqxx::sql_error& error) {
    throw StoreSetupError(fmt::format("PostgreSQL schema {} cannot be used: {}", schema_name_,
                                      first_line(error.what())));
  }
}

void PostgresDatabase::read_committed(const std::function<void(pqxx::work&)>& body) {
  // Row locks taken in one order per transaction make deadlocks unlikely, not impossible
  // (foreign sessions may lock the same rows): a deadlock victim rolled back everything, so it
  // is safe to run again.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      pqxx::work work(*connection_);
      body(work);
      work.commit();
      return;
    } catch (const pqxx::deadlock_detected&) {
      if (attempt == kAttempts) throw;
    } catch (const pqxx::in_doubt_error& error) {
      throw runtime::StoreUnavailableError(
          fmt::format("PostgreSQL commit outcome unknown: {}", first_line(error.what())));
    } catch (const pqxx::broken_connection& error) {
      throw runtime::StoreUnavailableError(
          fmt::format("PostgreSQL unreachable: {}", first_line(error.what())));
    }
  }
}

void PostgresDatabase::drop_schema() {
  pqxx::work work(*connection_);
  work.exec("DROP SCHEMA IF EXISTS " + schema_name_ + " CASCADE");
  work.commit();
}

}  // namespace fencesim::stores
