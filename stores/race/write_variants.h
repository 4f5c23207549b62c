#pragma once
// The ways a client can make a fenced write to the reference tables: the three correct ones of
// docs/reference-sql.md and the pitfalls kept as negative tests. Each runs the SQL of its file
// in stores/sql/ and returns the outcome the client sees.
#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace fencesim::stores::race {

enum class Outcome { kApplied, kDeduplicated, kRefused };
const char* to_string(Outcome outcome);

struct Write {
  std::string scope_key;
  std::int64_t token = 0;
  std::string idempotency_key;
  std::string payload;
};

struct VariantOptions {
  std::string sql_folder;  // stores/sql
  // Client work between the token check and the write, in microseconds, in every variant that
  // has the two apart: it widens the window the pitfalls leave open (and the correct variants
  // hold their lock or their serializable snapshot across it).
  int gap_us = 0;
};

class WriteVariant {
 public:
  virtual ~WriteVariant() = default;
  // One write, with its own retries (serialization failures); `retries` counts them.
  virtual Outcome write(pqxx::connection& connection, const Write& write, int& retries) = 0;
  // Whether the client derives the idempotency key per attempt (the per-attempt-key pitfall).
  virtual bool key_per_attempt() const { return false; }
};

// Names: read-committed, read-committed-row-lock, serializable (correct); two-transactions,
// plain-select, per-attempt-key, refuses-equal-token (pitfalls). Empty for an unknown name.
std::unique_ptr<WriteVariant> make_variant(const std::string& name, const VariantOptions& options);
std::vector<std::string> variant_names();

}  // namespace fencesim::stores::race
