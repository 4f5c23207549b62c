#pragma once
// A broken SQLite sink for real runs (`--sink-double accept-stale`): the bug of the
// sink-no-token-check mutant (mutants/) in the real store, since that mutant patches the
// in-memory sink, which a real run does not use. It never refuses a token: a stale write is
// applied and lowers the scope key's mark. The real mode's oracles must catch it.
#include <string>

#include "runtime/sink.h"
#include "stores/sqlite/sqlite_database.h"

namespace fencesim::real {

class AcceptStaleSqliteSink final : public runtime::Sink {
 public:
  AcceptStaleSqliteSink(stores::SqliteDatabase& database, std::string name,
                        runtime::Observer& observer)
      : database_(database), name_(std::move(name)), observer_(observer) {}
  const std::string& name() const override { return name_; }
  runtime::SinkReply write(const runtime::SinkWrite& write) override;

 private:
  stores::SqliteDatabase& database_;
  std::string name_;
  runtime::Observer& observer_;
};

}  // namespace fencesim::real
