#include "runtime/sink.h"

namespace fencesim::runtime {

std::string_view to_string(SinkOutcome outcome) {
  switch (outcome) {
    case SinkOutcome::kApplied:
      return "applied";
    case SinkOutcome::kDeduplicated:
      return "deduplicated";
    case SinkOutcome::kRefused:
      return "refused";
  }
  return "unknown";
}

MemorySink::MemorySink(std::string name, Observer& observer)
    : name_(std::move(name)), observer_(observer) {}

SinkReply MemorySink::write(const SinkWrite& write) {
  Token& high_water = high_water_[write.scope_key];
  RuntimeEvent event{EventKind::kSinkApplied, name_, {}, write.scope_key, write.token, {},
                     write.idempotency_key,   0};
  if (write.token < high_water) {
    event.kind = EventKind::kSinkRefused;
    event.value = static_cast<std::int64_t>(high_water);
    observer_.on_event(event);
    return SinkReply{SinkOutcome::kRefused, high_water};
  }
  high_water = write.token;
  event.value = static_cast<std::int64_t>(high_water);
  if (!applied_.emplace(write.scope_key, write.idempotency_key).second) {
    event.kind = EventKind::kSinkDeduplicated;
    observer_.on_event(event);
    return SinkReply{SinkOutcome::kDeduplicated, high_water};
  }
  effects_.push_back(
      SinkEffect{write.scope_key, write.token, write.idempotency_key, write.payload});
  observer_.on_event(event);
  return SinkReply{SinkOutcome::kApplied, high_water};
}

}  // namespace fencesim::runtime
