#pragma once
// A token-checking Sink in a SQLite file: the ADR's external system, embedded. The token check
// against the scope key's high-water mark and the idempotency check are one BEGIN IMMEDIATE
// transaction (SERIALIZABLE), so a stale write can never land after a higher token's, and an
// idempotency key is applied once.
#include <string>
#include <vector>

#include "runtime/sink.h"
#include "stores/sqlite/sqlite_database.h"

namespace fencesim::stores {

class SqliteSink : public runtime::Sink {
 public:
  SqliteSink(SqliteDatabase& database, std::string name, runtime::Observer& observer);
  const std::string& name() const override { return name_; }
  runtime::SinkReply write(const runtime::SinkWrite& write) override;
  // The effects applied by this sink, in commit order.
  std::vector<runtime::SinkEffect> effects();

 private:
  SqliteDatabase& database_;
  std::string name_;
  runtime::Observer& observer_;
};

}  // namespace fencesim::stores
