#pragma once
// Reads the reference SQL files (stores/sql/*.sql) as they are shown in docs/reference-sql.md:
// each statement follows a `-- name: NAME` line and runs to the next one (or the end). The race
// test runs exactly these texts, so the documented SQL is the tested SQL.
#include <map>
#include <string>

namespace fencesim::stores::race {

// Throws std::runtime_error when the file cannot be read or names no statement.
std::map<std::string, std::string> read_named_statements(const std::string& path);

}  // namespace fencesim::stores::race
