#include "real/accept_stale_sink.h"

#include "stores/sink_events.h"

namespace fencesim::real {

runtime::SinkReply AcceptStaleSqliteSink::write(const runtime::SinkWrite& write) {
  runtime::SinkReply reply{runtime::SinkOutcome::kApplied, write.token};
  database_.immediate([&] {
    // BROKEN ON PURPOSE: no comparison with the high-water mark; the mark becomes this token.
    stores::SqliteStatement raise = database_.prepare(
        "INSERT INTO fencesim_sink_high_water (sink, scope_key, high_water) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (sink, scope_key) DO UPDATE SET high_water = excluded.high_water");
    raise.bind(1, name_)
        .bind(2, write.scope_key)
        .bind(3, static_cast<std::int64_t>(write.token))
        .run();
    stores::SqliteStatement effect = database_.prepare(
        "INSERT OR IGNORE INTO fencesim_sink_effects "
        "(sink, scope_key, idempotency_key, token, payload) VALUES (?1, ?2, ?3, ?4, ?5)");
    effect.bind(1, name_)
        .bind(2, write.scope_key)
        .bind(3, write.idempotency_key)
        .bind(4, static_cast<std::int64_t>(write.token))
        .bind(5, write.payload)
        .run();
    reply.outcome = sqlite3_changes(database_.handle()) == 1 ? runtime::SinkOutcome::kApplied
                                                             : runtime::SinkOutcome::kDeduplicated;
  });
  observer_.on_event(stores::sink_event(name_, write, reply));
  return reply;
}

}  // namespace fencesim::real
