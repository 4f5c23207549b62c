#pragma once
// The runtime's stores as seen from an instance node: each call is a request over the simulated
// network to the node that hosts the store, handled there by the store's own implementation. At
// the store's node the simulator records each request it handled with its reply
// (sim/store_record.h): the wire's truth, which oracles and the reference model read.
#include "runtime/checkpoint_store.h"
#include "runtime/lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/sink.h"
#include "sim/network.h"
#include "sim/store_record.h"

namespace fencesim::sim {

struct Route {
  Network& network;
  NodeId from;
  NodeId to;
  StoreRecorder* recorder = nullptr;  // null: nothing recorded (tests of the network alone)
  // The store whose handling is recorded, when the requests travel to a node of their own in
  // front of it (World::add_checkpoint_store); kWorldNode: `to` itself.
  NodeId recorded_at = kWorldNode;
};

// The node a request's handling is recorded at (its store's clock, its store's history).
inline NodeId recorded_node(const Route& route) {
  return route.recorded_at == kWorldNode ? route.to : route.recorded_at;
}

namespace detail {

// When and from where the requester sent a request, read at the requester.
struct Sent {
  std::int64_t ns = 0;
  runtime::Nanoseconds monotonic_ns = 0;
  NodeId from = kWorldNode;
};
inline Sent sent_now(const Route& route) {
  if (route.recorder == nullptr) return {};
  return Sent{route.recorder->now_ns(), route.recorder->monotonic_ns(route.from), route.from};
}

// Names a call's texts: the recording world's interned names, or names of their own when nothing
// records (tests of the network alone).
struct Names {
  StoreRecorder* recorder = nullptr;
  Name operator()(std::string_view text) const {
    return recorder != nullptr ? recorder->intern(text) : Name(text);
  }
  NameKey operator()(const runtime::LeaseKey& key) const {
    return recorder != nullptr ? recorder->intern(key) : NameKey(key);
  }
  // A reply's lease; `key` is the call's own (a reply naming it shares its names).
  RecordedLease lease(const runtime::Lease& lease, const NameKey& key) const {
    return recorder != nullptr ? recorder->intern_lease(lease, key) : RecordedLease(lease);
  }
};

// Runs `handle` (the store's own call) at the store and records the request with its reply;
// `fill` copies the reply into the record, naming its texts with the Names it is given. A store
// that throws is recorded as failed.
template <typename Reply, typename Handle, typename Fill>
Reply handled_at_store(const Route& route, const Sent& sent, StoreCall call, Handle handle,
                       Fill fill) {
  if (route.recorder == nullptr) return handle();
  const Names names{route.recorder};
  call.store_wall_ns = route.recorder->store_wall_ns(recorded_node(route));
  call.sent_ns = sent.ns;
  call.sent_monotonic_ns = sent.monotonic_ns;
  call.from = sent.from;
  std::optional<Reply> reply;
  try {
    reply.emplace(handle());
  } catch (const std::exception& error) {
    call.failed = true;
    call.outcome = names(error.what());
    route.recorder->record_store_call(recorded_node(route), std::move(call));
    throw;
  }
  fill(*reply, call, names);
  route.recorder->record_store_call(recorded_node(route), std::move(call));
  return std::move(*reply);
}

inline StoreCall lease_call(const Route& route, StoreOp op, std::string_view store,
                            const runtime::LeaseKey& key, std::string_view holder,
                            runtime::Token token, runtime::Nanoseconds ttl_ns) {
  const Names names{route.recorder};
  StoreCall call;
  call.op = op;
  call.store = names(store);
  call.key = names(key);
  if (!holder.empty()) call.holder = names(holder);
  call.token = token;
  call.ttl_ns = ttl_ns;
  return call;
}

}  // namespace detail

class RemoteLeaseRepository final : public runtime::ExecutionLeaseRepository {
 public:
  RemoteLeaseRepository(Route route, runtime::ExecutionLeaseRepository& target,
                        std::string store_name = "lease-store")
      : route_(route), target_(target), store_(std::move(store_name)) {}
  runtime::TakeResult take(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                           runtime::Nanoseconds ttl_ns) override {
    const detail::Sent sent = detail::sent_now(route_);
    // The key captured as a value of its own (not a const copy), so moving the handler moves it.
    return route_.network.call<runtime::TakeResult>(route_.from, route_.to, "take",
                                                    [=, this, key = key] {
      return detail::handled_at_store<runtime::TakeResult>(
          route_, sent, detail::lease_call(route_, StoreOp::kTake, store_, key, holder, 0, ttl_ns),
          [&] { return target_.take(key, holder, ttl_ns); },
          [](const runtime::TakeResult& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names(r.status == runtime::TakeStatus::kTaken ? "taken" : "held");
            call.lease = names.lease(r.lease, call.key);
          });
    });
  }
  runtime::RenewResult renew(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                             runtime::Token token, runtime::Nanoseconds ttl_ns) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::RenewResult>(route_.from, route_.to, "renew", [=, this] {
      return detail::handled_at_store<runtime::RenewResult>(
          route_, sent, detail::lease_call(route_, StoreOp::kRenew, store_, key, holder, token, ttl_ns),
          [&] { return target_.renew(key, holder, token, ttl_ns); },
          [](const runtime::RenewResult& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names(runtime::to_string(r.status));
            if (r.lease) call.lease = names.lease(*r.lease, call.key);
          });
    });
  }
  runtime::ReleaseStatus release(const runtime::LeaseKey& key, const runtime::HolderId& holder,
                                 runtime::Token token) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::ReleaseStatus>(route_.from, route_.to, "release", [=,
                                                                                           this] {
      return detail::handled_at_store<runtime::ReleaseStatus>(
          route_, sent, detail::lease_call(route_, StoreOp::kRelease, store_, key, holder, token, 0),
          [&] { return target_.release(key, holder, token); },
          [](const runtime::ReleaseStatus& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names(r == runtime::ReleaseStatus::kReleased ? "released" : "refused");
          });
    });
  }
  std::optional<runtime::Lease> read(const runtime::LeaseKey& key) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<std::optional<runtime::Lease>>(route_.from, route_.to, "read", [=,
                                                                                                this] {
      return detail::handled_at_store<std::optional<runtime::Lease>>(
          route_, sent, detail::lease_call(route_, StoreOp::kRead, store_, key, {}, 0, 0),
          [&] { return target_.read(key); },
          [](const std::optional<runtime::Lease>& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names("ok");
            if (r) call.lease = names.lease(*r, call.key);
          });
    });
  }

 private:
  Route route_;
  runtime::ExecutionLeaseRepository& target_;
  std::string store_;
};

class RemoteCheckpointStore final : public runtime::CheckpointStore {
 public:
  RemoteCheckpointStore(Route route, runtime::CheckpointStore& target,
                        std::string store_name = "lease-store")
      : route_(route), target_(target), store_(std::move(store_name)) {}
  runtime::CommitResult commit_step(const runtime::LeaseKey& key, runtime::Token token,
                                    const std::string& step_path) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::CommitResult>(
        route_.from, route_.to, "checkpoint", [=, this] {
          StoreCall call = detail::lease_call(route_, StoreOp::kCommitStep, store_, key, {}, token, 0);
          call.argument = detail::Names{route_.recorder}(step_path);
          return detail::handled_at_store<runtime::CommitResult>(
              route_, sent, std::move(call), [&] { return target_.commit_step(key, token, step_path); },
              fill_commit);
        });
  }
  runtime::CommitResult commit_tree(const runtime::LeaseKey& key, runtime::Token token) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::CommitResult>(
        route_.from, route_.to, "checkpoint-tree", [=, this] {
          return detail::handled_at_store<runtime::CommitResult>(
              route_, sent, detail::lease_call(route_, StoreOp::kCommitTree, store_, key, {}, token, 0),
              [&] { return target_.commit_tree(key, token); }, fill_commit);
        });
  }
  runtime::Checkpoint load(const runtime::LeaseKey& key) override {
    const detail::Sent sent = detail::sent_now(route_);
    // The key captured as a value of its own (see take).
    return route_.network.call<runtime::Checkpoint>(route_.from, route_.to, "load",
                                                    [=, this, key = key] {
      return detail::handled_at_store<runtime::Checkpoint>(
          route_, sent, detail::lease_call(route_, StoreOp::kLoad, store_, key, {}, 0, 0),
          [&] { return target_.load(key); },
          [](const runtime::Checkpoint& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names("ok");
            call.completed_steps.reserve(r.completed_steps.size());
            for (const std::string& step : r.completed_steps) call.completed_steps.push_back(names(step));
            call.tree_completed = r.tree_completed;
            call.cancelled = r.cancelled;
            call.reply_token = r.last_token;
          });
    });
  }
  runtime::CancelStatus request_cancel(const runtime::LeaseKey& key) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::CancelStatus>(route_.from, route_.to, "cancel", [=, this] {
      return detail::handled_at_store<runtime::CancelStatus>(
          route_, sent, detail::lease_call(route_, StoreOp::kCancel, store_, key, {}, 0, 0),
          [&] { return target_.request_cancel(key); },
          [](const runtime::CancelStatus& r, StoreCall& call, const detail::Names& names) {
            call.outcome = names(runtime::to_string(r));
          });
    });
  }

 private:
  static void fill_commit(const runtime::CommitResult& r, StoreCall& call,
                          const detail::Names& names) {
    call.outcome = names(to_string(r.status));
    call.reply_token = r.current_epoch;
  }

  Route route_;
  runtime::CheckpointStore& target_;
  std::string store_;
};

class RemotePlacementQueue final : public runtime::PlacementQueue {
 public:
  RemotePlacementQueue(Route route, runtime::PlacementQueue& target,
                       std::string store_name = "lease-store")
      : route_(route), target_(target), store_(std::move(store_name)) {}
  void place(const runtime::LeaseKey& key, const std::string& workflow,
             const std::optional<runtime::LeaseKey>& parent) override {
    const detail::Sent sent = detail::sent_now(route_);
    route_.network.call<bool>(route_.from, route_.to, "place", [=, this] {
      StoreCall call = detail::lease_call(route_, StoreOp::kPlace, store_, key, {}, 0, 0);
      const detail::Names name{route_.recorder};
      call.argument = name(workflow);
      if (parent) call.parent = name(*parent);
      return detail::handled_at_store<bool>(
          route_, sent, std::move(call),
          [&] {
            target_.place(key, workflow, parent);
            return true;
          },
          [](bool, StoreCall& c, const detail::Names& names) { c.outcome = names("ok"); });
    });
  }
  std::vector<runtime::Placement> pending() override {
    return route_.network.call<std::vector<runtime::Placement>>(
        route_.from, route_.to, "pending", [this] { return target_.pending(); });
  }
  void finish(const runtime::LeaseKey& key) override {
    const detail::Sent sent = detail::sent_now(route_);
    route_.network.call<bool>(route_.from, route_.to, "finish", [=, this] {
      return detail::handled_at_store<bool>(
          route_, sent, detail::lease_call(route_, StoreOp::kFinish, store_, key, {}, 0, 0),
          [&] {
            target_.finish(key);
            return true;
          },
          [](bool, StoreCall& c, const detail::Names& names) { c.outcome = names("ok"); });
    });
  }
  std::optional<runtime::Placement> find(const runtime::LeaseKey& key) override {
    return route_.network.call<std::optional<runtime::Placement>>(
        route_.from, route_.to, "find", [=, this] { return target_.find(key); });
  }

 private:
  Route route_;
  runtime::PlacementQueue& target_;
  std::string store_;
};

class RemoteSink final : public runtime::Sink {
 public:
  RemoteSink(Route route, runtime::Sink& target) : route_(route), target_(target) {}
  const std::string& name() const override { return target_.name(); }
  runtime::SinkReply write(const runtime::SinkWrite& write) override {
    const detail::Sent sent = detail::sent_now(route_);
    return route_.network.call<runtime::SinkReply>(route_.from, route_.to, "write " + name(), [=,
                                                                                              this] {
      const detail::Names name{route_.recorder};
      StoreCall call;
      call.op = StoreOp::kWrite;
      call.store = name(target_.name());
      call.token = write.token;
      call.scope_key = name(write.scope_key);
      call.argument = name(write.idempotency_key);
      call.payload = name(write.payload);
      return detail::handled_at_store<runtime::SinkReply>(
          route_, sent, std::move(call), [&] { return target_.write(write); },
          [](const runtime::SinkReply& r, StoreCall& c, const detail::Names& names) {
            c.outcome = names(runtime::to_string(r.outcome));
            c.reply_token = r.high_water;
          });
    });
  }

 private:
  Route route_;
  runtime::Sink& target_;
};

}  // namespace fencesim::sim
