#include "stores/postgres/postgres_sink.h"

#include "stores/hex.h"
#include "stores/sink_events.h"

namespace fencesim::stores {

using runtime::SinkOutcome;
using runtime::SinkReply;
using runtime::Token;

PostgresSink::PostgresSink(PostgresDatabase& database, std::string name,
                           runtime::Observer& observer)
    : database_(database), name_(std::move(name)), observer_(observer) {}

SinkReply PostgresSink::write(const runtime::SinkWrite& write) {
  const std::string sink = to_hex(name_);
  const std::string scope_key = to_hex(write.scope_key);
  SinkReply reply{SinkOutcome::kRefused, runtime::kTokenNone};
  database_.read_committed([&](pqxx::work& work) {
    // The mark's row exists before it is locked: a scope key's first writers all lock one row.
    work.exec_params(
        "INSERT INTO fencesim_sink_high_water (sink, scope_key, high_water) "
        "VALUES (decode($1, 'hex'), decode($2, 'hex'), 0) ON CONFLICT DO NOTHING",
        sink, scope_key);
    reply.high_water = work.exec_params(
                               "SELECT high_water FROM fencesim_sink_high_water "
                               "WHERE sink = decode($1, 'hex') AND scope_key = decode($2, 'hex') "
                               "FOR UPDATE",
                               sink, scope_key)[0][0]
                           .as<Token>();
    reply.outcome = SinkOutcome::kRefused;
    if (write.token < reply.high_water) return;  // refused: the transaction changed nothing
    // An equal token is the current holder's: accepted. A higher one raises the mark, even when
    // its idempotency key turns out to be a duplicate: the new holder has taken over.
    reply.high_water = write.token;
    work.exec_params(
        "UPDATE fencesim_sink_high_water SET high_water = $3 "
        "WHERE sink = decode($1, 'hex') AND scope_key = decode($2, 'hex')",
        sink, scope_key, write.token);
    const pqxx::result inserted = work.exec_params(
        "INSERT INTO fencesim_sink_effects (sink, scope_key, idempotency_key, token, payload) "
        "VALUES (decode($1, 'hex'), decode($2, 'hex'), decode($3, 'hex'), $4, decode($5, 'hex')) "
        "ON CONFLICT (sink, scope_key, idempotency_key) DO NOTHING RETURNING sequence",
        sink, scope_key, to_hex(write.idempotency_key), write.token, to_hex(write.payload));
    reply.outcome = inserted.empty() ? SinkOutcome::kDeduplicated : SinkOutcome::kApplied;
  });
  observer_.on_event(sink_event(name_, write, reply));
  return reply;
}

std::vector<runtime::SinkEffect> PostgresSink::effects() {
  std::vector<runtime::SinkEffect> out;
  database_.read_committed([&](pqxx::work& work) {
    out.clear();
    const pqxx::result rows = work.exec_params(
        "SELECT encode(scope_key, 'hex'), token, encode(idempotency_key, 'hex'), "
        "encode(payload, 'hex') FROM fencesim_sink_effects WHERE sink = decode($1, 'hex') "
        "ORDER BY sequence",
        to_hex(name_));
    for (const pqxx::row& row : rows) {
      out.push_back(runtime::SinkEffect{from_hex(row[0].as<std::string>()), row[1].as<Token>(),
                                        from_hex(row[2].as<std::string>()),
                                        from_hex(row[3].as<std::string>())});
    }
  });
  return out;
}

}  // namespace fencesim::stores
