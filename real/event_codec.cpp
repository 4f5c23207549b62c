#include "real/event_codec.h"

#include <cstring>
#include <stdexcept>

namespace fencesim::real {

namespace {

class Writer {
 public:
  void u64(std::uint64_t value) { bytes(&value, sizeof value); }
  void i64(std::int64_t value) { bytes(&value, sizeof value); }
  void u8(std::uint8_t value) { bytes(&value, sizeof value); }
  void text(std::string_view value) {
    u64(value.size());
    out_.append(value);
  }
  void key(const runtime::LeaseKey& key) {
    text(key.tenant_id);
    text(key.lease_execution_id);
  }
  std::string take() { return std::move(out_); }

 private:
  void bytes(const void* data, std::size_t size) {
    out_.append(static_cast<const char*>(data), size);
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint64_t u64() { return scalar<std::uint64_t>(); }
  std::int64_t i64() { return scalar<std::int64_t>(); }
  std::uint8_t u8() { return scalar<std::uint8_t>(); }
  std::string text() {
    const std::uint64_t size = u64();
    need(size);
    std::string value(in_.substr(at_, size));
    at_ += size;
    return value;
  }
  runtime::LeaseKey key() {
    std::string tenant = text();
    return runtime::LeaseKey{std::move(tenant), text()};
  }
  bool done() const { return at_ == in_.size(); }

 private:
  template <typename T>
  T scalar() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  void need(std::uint64_t size) const {
    if (in_.size() - at_ < size) throw std::runtime_error("a history record is malformed");
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

void write_lease(Writer& w, const runtime::Lease& lease) {
  w.key(lease.key);
  w.text(lease.holder);
  w.u64(lease.token);
  w.i64(lease.expires_at_ns);
  w.u8(lease.released ? 1 : 0);
}

runtime::Lease read_lease(Reader& r) {
  runtime::Lease lease;
  lease.key = r.key();
  lease.holder = r.text();
  lease.token = r.u64();
  lease.expires_at_ns = r.i64();
  lease.released = r.u8() != 0;
  return lease;
}

void write_call(Writer& w, const sim::StoreCall& c) {
  w.u8(static_cast<std::uint8_t>(c.op));
  w.text(c.store);
  w.text(c.holder);
  w.key(c.key);
  w.u64(c.token);
  w.i64(c.ttl_ns);
  w.text(c.argument);
  w.u8(c.parent ? 1 : 0);
  if (c.parent) w.key(*c.parent);
  w.text(c.scope_key);
  w.text(c.payload);
  w.i64(c.store_wall_ns);
  w.i64(c.sent_ns);
  w.i64(c.sent_monotonic_ns);
  w.u64(c.from);
  w.u8(c.failed ? 1 : 0);
  w.text(c.outcome);
  w.u8(c.lease ? 1 : 0);
  if (c.lease) write_lease(w, *c.lease);
  w.u64(c.reply_token);
  w.u64(c.completed_steps.size());
  for (const std::string& step : c.completed_steps) w.text(step);
  w.u8((c.tree_completed ? 1 : 0) | (c.cancelled ? 2 : 0));  // flags: one byte, as before
}

sim::StoreCall read_call(Reader& r) {
  sim::StoreCall c;
  c.op = static_cast<sim::StoreOp>(r.u8());
  c.store = r.text();
  c.holder = r.text();
  c.key = r.key();
  c.token = r.u64();
  c.ttl_ns = r.i64();
  c.argument = r.text();
  if (r.u8() != 0) c.parent = r.key();
  c.scope_key = r.text();
  c.payload = r.text();
  c.store_wall_ns = r.i64();
  c.sent_ns = r.i64();
  c.sent_monotonic_ns = r.i64();
  c.from = static_cast<sim::NodeId>(r.u64());
  c.failed = r.u8() != 0;
  c.outcome = r.text();
  if (r.u8() != 0) c.lease = read_lease(r);
  c.reply_token = r.u64();
  const std::uint64_t steps = r.u64();
  for (std::uint64_t i = 0; i < steps; ++i) c.completed_steps.push_back(r.text());
  const std::uint8_t flags = r.u8();
  c.tree_completed = (flags & 1) != 0;
  c.cancelled = (flags & 2) != 0;
  return c;
}

}  // namespace

std::string encode_record(const LoggedEvent& logged) {
  const sim::HistoryEvent& e = logged.event;
  Writer w;
  w.u64(logged.sequence);
  w.i64(e.time_ns);
  w.u64(e.node);
  w.i64(e.local_monotonic_ns);
  w.u8(static_cast<std::uint8_t>(e.world));
  const sim::RuntimeRecord& r = e.runtime;
  w.u8(static_cast<std::uint8_t>(r.kind));
  w.text(r.holder);
  w.key(r.key);
  w.text(r.scope_key);
  w.u64(r.token);
  w.text(r.step);
  w.text(r.detail);
  w.i64(r.value);
  w.text(e.detail);
  w.u8(e.store ? 1 : 0);
  if (e.store) write_call(w, *e.store);
  std::string body = w.take();
  const auto size = static_cast<std::uint32_t>(body.size());
  std::string record(reinterpret_cast<const char*>(&size), sizeof size);
  return record + body;
}

std::vector<LoggedEvent> decode_records(std::string_view bytes) {
  std::vector<LoggedEvent> out;
  std::size_t at = 0;
  while (bytes.size() - at >= sizeof(std::uint32_t)) {
    std::uint32_t size = 0;
    std::memcpy(&size, bytes.data() + at, sizeof size);
    if (bytes.size() - at - sizeof size < size) break;  // cut short by a kill: never complete
    Reader r(bytes.substr(at + sizeof size, size));
    at += sizeof size + size;
    LoggedEvent logged;
    logged.sequence = r.u64();
    sim::HistoryEvent& e = logged.event;
    e.time_ns = r.i64();
    e.node = static_cast<sim::NodeId>(r.u64());
    e.local_monotonic_ns = r.i64();
    e.world = static_cast<sim::WorldEventKind>(r.u8());
    sim::RuntimeRecord& rt = e.runtime;
    rt.kind = static_cast<runtime::EventKind>(r.u8());
    rt.holder = r.text();
    rt.key = r.key();
    rt.scope_key = r.text();
    rt.token = r.u64();
    rt.step = r.text();
    rt.detail = r.text();
    rt.value = r.i64();
    e.detail = r.text();
    if (r.u8() != 0) e.store = std::make_shared<const sim::StoreCall>(read_call(r));
    if (!r.done()) throw std::runtime_error("a history record has bytes left over");
    out.push_back(std::move(logged));
  }
  return out;
}

}  // namespace fencesim::real
