#include "stores/sqlite/sqlite_sink.h"

#include "stores/sink_events.h"

namespace fencesim::stores {

using runtime::SinkOutcome;
using runtime::SinkReply;
using runtime::Token;

SqliteSink::SqliteSink(SqliteDatabase& database, std::string name, runtime::Observer& observer)
    : database_(database), name_(std::move(name)), observer_(observer) {}

SinkReply SqliteSink::write(const runtime::SinkWrite& write) {
  SinkReply reply{SinkOutcome::kRefused, runtime::kTokenNone};
  database_.immediate([&] {
    SqliteStatement mark = database_.prepare(
        "SELECT high_water FROM fencesim_sink_high_water WHERE sink = ?1 AND scope_key = ?2");
    mark.bind(1, name_).bind(2, write.scope_key);
    reply.high_water = mark.step() ? static_cast<Token>(mark.integer(0)) : runtime::kTokenNone;
    if (write.token < reply.high_water) return;  // refused: nothing written
    // An equal token is the current holder's: accepted. A higher one raises the mark, even when
    // its idempotency key turns out to be a duplicate: the new holder has taken over.
    reply.high_water = write.token;
    SqliteStatement raise = database_.prepare(
        "INSERT INTO fencesim_sink_high_water (sink, scope_key, high_water) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (sink, scope_key) DO UPDATE SET high_water = excluded.high_water");
    raise.bind(1, name_)
        .bind(2, write.scope_key)
        .bind(3, static_cast<std::int64_t>(write.token))
        .run();
    SqliteStatement effect = database_.prepare(
        "INSERT OR IGNORE INTO fencesim_sink_effects "
        "(sink, scope_key, idempotency_key, token, payload) VALUES (?1, ?2, ?3, ?4, ?5)");
    effect.bind(1, name_)
        .bind(2, write.scope_key)
        .bind(3, write.idempotency_key)
        .bind(4, static_cast<std::int64_t>(write.token))
        .bind(5, write.payload)
        .run();
    reply.outcome = sqlite3_changes(database_.handle()) == 1 ? SinkOutcome::kApplied
                                                             : SinkOutcome::kDeduplicated;
  });
  observer_.on_event(sink_event(name_, write, reply));
  return reply;
}

std::vector<runtime::SinkEffect> SqliteSink::effects() {
  std::vector<runtime::SinkEffect> out;
  SqliteStatement select = database_.prepare(
      "SELECT scope_key, token, idempotency_key, payload FROM fencesim_sink_effects "
      "WHERE sink = ?1 ORDER BY sequence");
  select.bind(1, name_);
  while (select.step()) {
    out.push_back(runtime::SinkEffect{select.blob(0), static_cast<Token>(select.integer(1)),
                                      select.blob(2), select.blob(3)});
  }
  return out;
}

}  // namespace fencesim::stores
