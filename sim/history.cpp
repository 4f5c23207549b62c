#include "sim/history.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "runtime/check.h"
#include "sim/last_events.h"

namespace fencesim::sim {

std::string_view to_string(WorldEventKind kind) {
  switch (kind) {
    case WorldEventKind::kRuntime:
      return "runtime";
    case WorldEventKind::kFaultApplied:
      return "fault-applied";
    case WorldEventKind::kFaultEnded:
      return "fault-ended";
    case WorldEventKind::kNodePaused:
      return "node-paused";
    case WorldEventKind::kNodeResumed:
      return "node-resumed";
    case WorldEventKind::kNodeCrashed:
      return "node-crashed";
    case WorldEventKind::kNodeRestarted:
      return "node-restarted";
    case WorldEventKind::kMessageLost:
      return "message-lost";
    case WorldEventKind::kPhase:
      return "phase";
    case WorldEventKind::kMark:
      return "mark";
    case WorldEventKind::kMeasure:
      return "measure";
    case WorldEventKind::kIntent:
      return "intent";
    case WorldEventKind::kStoreCall:
      return "store-call";
    case WorldEventKind::kObserved:
      return "observed";
    case WorldEventKind::kCancelRequest:
      return "cancel-request";
    case WorldEventKind::kFaultAimed:
      return "fault-aimed";
  }
  return "unknown";
}

namespace {

// Canonical encoding: fixed-width integers and length-prefixed strings, so that no two different
// events encode alike; a name as the scheme says (its bytes, or its XXH3 as a fixed-width
// integer). Encoded into one reused buffer and hashed in one call per event. The scheme is a
// template argument: chosen once per event, not once per name.
template <HistoryHashScheme kScheme>
class Encoder {
 public:
  // Writes from the start of `buffer`, which only grows (it is kept from event to event): each
  // field is stored in place, no append (and its checks) per field.
  // Writes after the first `start` bytes of `buffer`.
  Encoder(std::string& buffer, std::size_t start)
      : buffer_(buffer), data_(buffer.data()), capacity_(buffer.size()), start_(start), used_(start) {}
  void integer(std::uint64_t value) {
    char* out = room(sizeof value);
    std::memcpy(out, &value, sizeof value);
  }
  // A key of a store call's own fields (a place's parent, a reply's lease) by its bytes, as when
  // these fields were strings: only the call's key and the runtime's events' names follow the
  // scheme.
  void lease_bytes(const NameKey& key) {
    text(key.tenant_id.view());
    text(key.lease_execution_id.view());
  }
  void lease(const NameKey& key) {
    name(key.tenant_id);
    name(key.lease_execution_id);
  }
  void name(const Name& value) {
    if constexpr (kScheme == HistoryHashScheme::kNameBytes) {
      text(value.view());
    } else {
      integer(value.hash());
    }
  }
  void text(std::string_view value) {
    integer(value.size());
    if (!value.empty()) std::memcpy(room(value.size()), value.data(), value.size());
  }
  // The encoding so far (after `start`).
  std::string_view bytes() const { return {data_ + start_, used_ - start_}; }

 private:
  char* room(std::size_t size) {
    if (used_ + size > capacity_) [[unlikely]] grow(size);
    char* out = data_ + used_;
    used_ += size;
    return out;
  }
  [[gnu::noinline]] void grow(std::size_t size) {
    buffer_.resize(std::max(2 * buffer_.size(), used_ + size + 256));
    data_ = buffer_.data();
    capacity_ = buffer_.size();
  }
  std::string& buffer_;
  char* data_;
  std::size_t capacity_;
  std::size_t start_;
  std::size_t used_;
};

// The storage of the last History that ended on this thread, kept for the next one.
struct SpareStorage {
  std::vector<HistoryEvent> events;
  std::vector<std::uint64_t> rolling;
};
thread_local SpareStorage spare;

}  // namespace

RuntimeRecord::RuntimeRecord(const runtime::RuntimeEvent& event)
    : kind(event.kind),
      holder(event.holder),
      key(event.key),
      scope_key(event.scope_key),
      token(event.token),
      step(event.step),
      detail(event.detail),
      value(event.value) {}

RuntimeRecord::RuntimeRecord(runtime::RuntimeEvent&& event)
    : kind(event.kind),
      holder(std::move(event.holder)),
      key(std::move(event.key)),
      scope_key(std::move(event.scope_key)),
      token(event.token),
      step(std::move(event.step)),
      detail(std::move(event.detail)),
      value(event.value) {}

RuntimeRecord::RuntimeRecord(const runtime::RuntimeEvent& event, NameTable& names)
    : kind(event.kind),
      holder(names.intern(std::string_view(event.holder))),
      key(names.intern(event.key)),
      scope_key(names.intern(std::string_view(event.scope_key))),
      token(event.token),
      step(names.intern(std::string_view(event.step))),
      detail(names.intern(std::string_view(event.detail))),
      value(event.value) {}

RuntimeRecord::operator runtime::RuntimeEvent() const {
  return runtime::RuntimeEvent{kind,  holder.str(), key,          scope_key.str(),
                               token, step.str(),   detail.str(), value};
}

History::History() : state_(XXH3_createState()) {
  check(state_ != nullptr, "XXH3 state allocated");
  XXH3_64bits_reset(state_);
  last_events::clear();  // a hang's report names this run's events, not an earlier run's
  events_.swap(spare.events);
  rolling_.swap(spare.rolling);
}

History::~History() {
  XXH3_freeState(state_);
  if (rolling_state_ != nullptr) XXH3_freeState(rolling_state_);
  // Keep the larger storage for the next History of this thread.
  events_.clear();
  rolling_.clear();
  if (events_.capacity() > spare.events.capacity()) events_.swap(spare.events);
  if (rolling_.capacity() > spare.rolling.capacity()) rolling_.swap(spare.rolling);
}

namespace {

// The canonical encoding of one event (see Encoder): everything but its index, written into
// `buffer` after its first `start` bytes.
template <HistoryHashScheme kScheme>
std::string_view encode_event(const HistoryEvent& event, std::string& buffer, std::size_t start) {
  Encoder<kScheme> encode(buffer, start);
  encode.integer(static_cast<std::uint64_t>(event.time_ns));
  encode.integer(event.node);
  encode.integer(static_cast<std::uint64_t>(event.local_monotonic_ns));
  encode.integer(static_cast<std::uint64_t>(event.world));
  if (event.world == WorldEventKind::kRuntime || event.world == WorldEventKind::kIntent ||
      event.world == WorldEventKind::kObserved || event.world == WorldEventKind::kCancelRequest) {
    const RuntimeRecord& r = event.runtime;
    encode.integer(static_cast<std::uint64_t>(r.kind));
    encode.name(r.holder);
    encode.name(r.key.tenant_id);
    encode.name(r.key.lease_execution_id);
    encode.name(r.scope_key);
    encode.integer(r.token);
    encode.name(r.step);
    encode.name(r.detail);
    encode.integer(static_cast<std::uint64_t>(r.value));
  }
  // A name's bytes or its XXH3 (the scheme), never its identity (an address): the same run hashes
  // alike in every process.
  encode.name(event.detail);
  if (event.world == WorldEventKind::kStoreCall && event.store) {
    const StoreCall& c = *event.store;
    encode.integer(static_cast<std::uint64_t>(c.op));
    encode.text(c.store.view());
    encode.text(c.holder.view());
    encode.lease(c.key);
    encode.integer(c.token);
    encode.integer(static_cast<std::uint64_t>(c.ttl_ns));
    encode.text(c.argument.view());
    encode.integer(c.parent.has_value());
    if (c.parent) encode.lease_bytes(*c.parent);
    encode.text(c.scope_key.view());
    encode.text(c.payload.view());
    encode.integer(static_cast<std::uint64_t>(c.store_wall_ns));
    encode.integer(static_cast<std::uint64_t>(c.sent_ns));
    encode.integer(static_cast<std::uint64_t>(c.sent_monotonic_ns));
    encode.integer(c.from);
    encode.integer(c.failed);
    encode.text(c.outcome.view());
    encode.integer(c.lease.has_value());
    if (c.lease) {
      encode.lease_bytes(c.lease->key);
      encode.text(c.lease->holder.view());
      encode.integer(c.lease->token);
      encode.integer(static_cast<std::uint64_t>(c.lease->expires_at_ns));
      encode.integer(c.lease->released);
    }
    encode.integer(c.reply_token);
    encode.integer(c.completed_steps.size());
    for (const Name& step : c.completed_steps) encode.text(step.view());
    encode.integer(c.tree_completed);
    if (c.cancelled) encode.integer(1);  // only when set: histories without cancels keep their hash
  }
  return encode.bytes();
}

std::string_view encode_event(const HistoryEvent& event, std::string& buffer, std::size_t start,
                              HistoryHashScheme scheme) {
  if (scheme == HistoryHashScheme::kNameBytes) {
    return encode_event<HistoryHashScheme::kNameBytes>(event, buffer, start);
  }
  return encode_event<HistoryHashScheme::kNameHashes>(event, buffer, start);
}

}  // namespace

void History::record(HistoryEvent event) {
  event.index = count_++;
  last_events::note(event.world, event.runtime.kind);
  // Appended to the bytes not hashed yet: the hash of a stream is the hash of its concatenation,
  // so a few large updates give the same hash as one small update per event, for less.
  pending_ += encode_event(event, encoded_, pending_, scheme_).size();
  if (pending_ >= kHashBatchBytes) hash_pending();
  if (keep_events_) events_.push_back(std::move(event));
  if (hook_) hook_(keep_events_ ? events_.back() : event);
}

const std::vector<std::uint64_t>& History::rolling_hashes() const {
  // Worked out when asked (a determinism check, a replay's divergence), not per event: the same
  // encoding fed again into a state of its own, one digest per event.
  if (rolling_.size() < events_.size()) {
    if (rolling_state_ == nullptr) {
      rolling_state_ = XXH3_createState();
      check(rolling_state_ != nullptr, "XXH3 state allocated");
      XXH3_64bits_reset(rolling_state_);
    }
    std::string buffer;
    for (std::size_t i = rolling_.size(); i < events_.size(); ++i) {
      const std::string_view encoded = encode_event(events_[i], buffer, 0, scheme_);
      XXH3_64bits_update(rolling_state_, encoded.data(), encoded.size());
      rolling_.push_back(XXH3_64bits_digest(rolling_state_));
    }
  }
  return rolling_;
}

std::shared_ptr<const StoreCall> History::keep_store_call(StoreCall&& call) {
  // A history that keeps no events (hashed only) keeps no calls either: each goes with its event.
  if (!keep_events_) return std::make_shared<const StoreCall>(std::move(call));
  StoreCalls& calls = *store_calls_;
  if (calls.used == StoreCalls::kChunk) {
    calls.chunks.push_back(std::make_unique<StoreCall[]>(StoreCalls::kChunk));
    calls.used = 0;
  }
  StoreCall& kept = calls.chunks.back()[calls.used++];
  kept = std::move(call);
  // Shares ownership of every call of the run; points at this one.
  return std::shared_ptr<const StoreCall>(store_calls_, &kept);
}

void History::set_hash_scheme(HistoryHashScheme scheme) {
  check(count_ == 0, "a history's hash scheme is chosen before its first event");
  check(scheme == HistoryHashScheme::kNameBytes || scheme == HistoryHashScheme::kNameHashes,
        "a known history hash scheme");
  scheme_ = scheme;
}

void History::hash_pending() const {
  XXH3_64bits_update(state_, encoded_.data(), pending_);
  pending_ = 0;
}

std::uint64_t History::hash() const {
  hash_pending();
  return XXH3_64bits_digest(state_);
}

std::string describe(const HistoryEvent& event, const std::vector<std::string>& node_names) {
  const std::string node =
      event.node < node_names.size() ? node_names[event.node] : fmt::format("node-{}", event.node);
  const double seconds = static_cast<double>(event.time_ns) / 1e9;
  if (event.world == WorldEventKind::kIntent) {
    const RuntimeRecord& r = event.runtime;
    return fmt::format(
        "#{} t={:.6f}s {} intent sink={} tree=({}, {}) step={} effect={} token={}: {}", event.index,
        seconds, node, r.holder, r.key.tenant_id, r.key.lease_execution_id, r.step, r.detail,
        r.token, event.detail);
  }
  if (event.world == WorldEventKind::kStoreCall && event.store) {
    return fmt::format("#{} t={:.6f}s {} {}", event.index, seconds, node, describe(*event.store));
  }
  if (event.world == WorldEventKind::kObserved) {
    const RuntimeRecord& r = event.runtime;
    return fmt::format(
        "#{} t={:.6f}s {} observed {} tree=({}, {}) step={} token={} sink={} "
        "effect={}: {}",
        event.index, seconds, node, r.holder, r.key.tenant_id, r.key.lease_execution_id, r.step,
        r.token, r.scope_key, r.detail, event.detail);
  }
  if (event.world != WorldEventKind::kRuntime) {
    return fmt::format("#{} t={:.6f}s {} {}: {}", event.index, seconds, node,
                       to_string(event.world), event.detail);
  }
  const RuntimeRecord& r = event.runtime;
  std::string text = fmt::format("#{} t={:.6f}s {} {} holder={} key={}", event.index, seconds, node,
                                 runtime::to_string(r.kind), r.holder, r.scope_key);
  if (r.scope_key.empty() && !r.key.tenant_id.empty()) {
    text += fmt::format("({}, {})", r.key.tenant_id, r.key.lease_execution_id);
  }
  if (r.token != 0) text += fmt::format(" token={}", r.token);
  if (!r.step.empty()) text += fmt::format(" step={}", r.step);
  if (!r.detail.empty()) text += fmt::format(" detail={}", r.detail);
  if (r.value != 0) text += fmt::format(" value={}", r.value);
  return text;
}

}  // namespace fencesim::sim
