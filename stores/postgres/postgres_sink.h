#pragma once
// A token-checking Sink in PostgreSQL, written as docs/reference-sql.md's READ COMMITTED write:
// the scope key's high-water row is locked (FOR UPDATE) before the token is judged, and the
// token check, the mark's raise and the idempotent insert of the effect are one transaction.
#include <string>
#include <vector>

#include "runtime/sink.h"
#include "stores/postgres/postgres_database.h"

namespace fencesim::stores {

class PostgresSink : public runtime::Sink {
 public:
  PostgresSink(PostgresDatabase& database, std::string name, runtime::Observer& observer);
  const std::string& name() const override { return name_; }
  runtime::SinkReply write(const runtime::SinkWrite& write) override;
  // The effects applied by this sink, in commit order.
  std::vector<runtime::SinkEffect> effects();

 private:
  PostgresDatabase& database_;
  std::string name_;
  runtime::Observer& observer_;
};

}  // namespace fencesim::stores
