#pragma once
// The store-side event of a sink write, as the in-memory sink reports it: applied, deduplicated
// or refused, with the scope key, the token, the idempotency key and the high-water token.
#include <string>

#include "runtime/observer.h"
#include "runtime/sink.h"

namespace fencesim::stores {

inline runtime::RuntimeEvent sink_event(const std::string& sink, const runtime::SinkWrite& write,
                                        const runtime::SinkReply& reply) {
  runtime::EventKind kind = runtime::EventKind::kSinkApplied;
  if (reply.outcome == runtime::SinkOutcome::kDeduplicated) {
    kind = runtime::EventKind::kSinkDeduplicated;
  } else if (reply.outcome == runtime::SinkOutcome::kRefused) {
    kind = runtime::EventKind::kSinkRefused;
  }
  return runtime::RuntimeEvent{kind,
                               sink,
                               {},
                               write.scope_key,
                               write.token,
                               {},
                               write.idempotency_key,
                               static_cast<std::int64_t>(reply.high_water)};
}

}  // namespace fencesim::stores
