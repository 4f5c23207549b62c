#include "real/store_links.h"

#include <sys/file.h>

#include <boost/fiber/future.hpp>
#include <cerrno>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace fencesim::real {

using sim::StoreCall;
using sim::StoreOp;

OrderLock::OrderLock(int fd) : fd_(fd) {
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

OrderLock::~OrderLock() {
  ::flock(fd_, LOCK_UN);
}

namespace {

// What the network does to one call before it reaches the store: waits out a delay, or loses it
// (the caller waits for its timeout, as the simulated network's caller does).
void cross_network(Wire& wire, const LinkTrouble& trouble, const std::string& what) {
  if (trouble.delay_ns > 0) wire.env.sleep(trouble.delay_ns);
  if (trouble.down || wire.faults.happens(trouble.drop_probability)) {
    wire.log.record(wire.from, sim::WorldEventKind::kMessageLost,
                    wire.from_name + " -> " + wire.to_name + ": " + what +
                        (trouble.down ? " (down)" : " (dropped)"));
    wire.env.sleep(wire.rpc_timeout_ns);
    throw runtime::StoreUnavailableError("no reply to " + what + " within the timeout");
  }
}

// One store call of this process at a time: the stores' connections (a sqlite3 handle, a libpqxx
// connection) are not for two threads at once, and flock does not exclude two threads of one
// process (the lock belongs to the open file, not to the thread).
std::mutex& store_call_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Runs `call` on a thread of its own while the calling fiber waits for it. A store call blocks
// (SQLite's busy wait, a PostgreSQL round trip and its commit, the order lock): on the fibers'
// thread it would stop every fiber of the process with it, the lease's expiry watchdog and renewal
// timer among them, and a holder would give up an expired lease only when the call returned. In
// the ADR's runtime a request never blocks its event loop, so neither does it here.
template <typename Call>
void off_the_fibers_thread(Call&& call) {
  boost::fibers::promise<void> done;
  boost::fibers::future<void> finished = done.get_future();
  std::thread worker([&call, &done] {
    try {
      call();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  std::exception_ptr error;
  try {
    finished.get();  // suspends this fiber only; the others run
  } catch (...) {
    error = std::current_exception();
  }
  worker.join();
  if (error) std::rethrow_exception(error);
}

// Asks the store without recording the call (the placement queue's polls, as in the simulation):
// across the same network, on a thread of its own, one call of the process at a time.
template <typename Reply, typename Handle>
Reply unrecorded(Wire& wire, const std::string& what, Handle handle) {
  cross_network(wire, wire.faults.trouble(wire.from_name, wire.to_name, wire.log.now_ns()), what);
  std::optional<Reply> reply;
  off_the_fibers_thread([&] {
    const std::lock_guard<std::mutex> one_call(store_call_mutex());
    reply.emplace(handle());
  });
  return std::move(*reply);
}

// Asks the store under the order lock and records the call with its reply at the store's node.
template <typename Reply, typename Handle, typename Fill>
Reply handled(Wire& wire, StoreCall call, const std::string& what, Handle handle, Fill fill) {
  call.sent_ns = wire.log.now_ns();
  call.sent_monotonic_ns = wire.env.monotonic_ns();
  call.from = wire.from;
  const LinkTrouble trouble = wire.faults.trouble(wire.from_name, wire.to_name, call.sent_ns);
  cross_network(wire, trouble, what);
  const int times = wire.faults.happens(trouble.duplicate_probability) ? 2 : 1;
  std::optional<Reply> reply;
  off_the_fibers_thread([&] {
    const std::lock_guard<std::mutex> one_call(store_call_mutex());
    for (int i = 0; i < times; ++i) {
      OrderLock lock(wire.order_fd);
      StoreCall record = call;
      record.store_wall_ns = wire.store_clock.latch();
      try {
        reply.emplace(handle());
        wire.store_clock.unlatch();
      } catch (const std::exception& error) {
        wire.store_clock.unlatch();
        record.failed = true;
        record.outcome = error.what();
        sim::HistoryEvent event;
        event.world = sim::WorldEventKind::kStoreCall;
        event.store = std::make_shared<const StoreCall>(std::move(record));
        wire.log.record(wire.to, std::move(event));
        throw;
      }
      fill(*reply, record);
      sim::HistoryEvent event;
      event.world = sim::WorldEventKind::kStoreCall;
      event.store = std::make_shared<const StoreCall>(std::move(record));
      wire.log.record(wire.to, std::move(event));
    }
  });
  if (wire.faults.happens(trouble.drop_probability)) {
    wire.log.record(wire.to, sim::WorldEventKind::kMessageLost,
                    wire.to_name + " -> " + wire.from_name + ": reply to " + what + " (dropped)");
    wire.env.sleep(wire.rpc_timeout_ns);
    throw runtime::StoreUnavailableError("no reply to " + what + " within the timeout");
  }
  return std::move(*reply);
}

StoreCall lease_call(StoreOp op, const std::string& store, const runtime::LeaseKey& key,
                     const runtime::HolderId& holder, runtime::Token token,
                     runtime::Nanoseconds ttl_ns) {
  StoreCall call;
  call.op = op;
  call.store = store;
  call.key = key;
  call.holder = holder;
  call.token = token;
  call.ttl_ns = ttl_ns;
  return call;
}

void fill_commit(const runtime::CommitResult& r, StoreCall& call) {
  call.outcome = std::string(sim::to_string(r.status));
  call.reply_token = r.current_epoch;
}

}  // namespace

runtime::TakeResult LinkedLeaseRepository::take(const runtime::LeaseKey& key,
                                                const runtime::HolderId& holder,
                                                runtime::Nanoseconds ttl_ns) {
  return handled<runtime::TakeResult>(
      wire_, lease_call(StoreOp::kTake, wire_.to_name, key, holder, 0, ttl_ns), "take",
      [&] { return target_.take(key, holder, ttl_ns); },
      [](const runtime::TakeResult& r, StoreCall& call) {
        call.outcome = r.status == runtime::TakeStatus::kTaken ? "taken" : "held";
        call.lease = r.lease;
      });
}

runtime::RenewResult LinkedLeaseRepository::renew(const runtime::LeaseKey& key,
                                                  const runtime::HolderId& holder,
                                                  runtime::Token token,
                                                  runtime::Nanoseconds ttl_ns) {
  return handled<runtime::RenewResult>(
      wire_, lease_call(StoreOp::kRenew, wire_.to_name, key, holder, token, ttl_ns), "renew",
      [&] { return target_.renew(key, holder, token, ttl_ns); },
      [](const runtime::RenewResult& r, StoreCall& call) {
        call.outcome = std::string(runtime::to_string(r.status));
        call.lease = r.lease;
      });
}

runtime::ReleaseStatus LinkedLeaseRepository::release(const runtime::LeaseKey& key,
                                                      const runtime::HolderId& holder,
                                                      runtime::Token token) {
  return handled<runtime::ReleaseStatus>(
      wire_, lease_call(StoreOp::kRelease, wire_.to_name, key, holder, token, 0), "release",
      [&] { return target_.release(key, holder, token); },
      [](const runtime::ReleaseStatus& r, StoreCall& call) {
        call.outcome = r == runtime::ReleaseStatus::kReleased ? "released" : "refused";
      });
}

std::optional<runtime::Lease> LinkedLeaseRepository::read(const runtime::LeaseKey& key) {
  return handled<std::optional<runtime::Lease>>(
      wire_, lease_call(StoreOp::kRead, wire_.to_name, key, {}, 0, 0), "read",
      [&] { return target_.read(key); },
      [](const std::optional<runtime::Lease>& r, StoreCall& call) {
        call.outcome = "ok";
        call.lease = r;
      });
}

runtime::CommitResult LinkedCheckpointStore::commit_step(const runtime::LeaseKey& key,
                                                         runtime::Token token,
                                                         const std::string& step_path) {
  StoreCall call = lease_call(StoreOp::kCommitStep, wire_.to_name, key, {}, token, 0);
  call.argument = step_path;
  return handled<runtime::CommitResult>(
      wire_, std::move(call), "checkpoint",
      [&] { return target_.commit_step(key, token, step_path); }, fill_commit);
}

runtime::CommitResult LinkedCheckpointStore::commit_tree(const runtime::LeaseKey& key,
                                                         runtime::Token token) {
  return handled<runtime::CommitResult>(
      wire_, lease_call(StoreOp::kCommitTree, wire_.to_name, key, {}, token, 0), "checkpoint-tree",
      [&] { return target_.commit_tree(key, token); }, fill_commit);
}

runtime::Checkpoint LinkedCheckpointStore::load(const runtime::LeaseKey& key) {
  return handled<runtime::Checkpoint>(
      wire_, lease_call(StoreOp::kLoad, wire_.to_name, key, {}, 0, 0), "load",
      [&] { return target_.load(key); },
      [](const runtime::Checkpoint& r, StoreCall& call) {
        call.outcome = "ok";
        call.completed_steps.assign(r.completed_steps.begin(), r.completed_steps.end());
        call.tree_completed = r.tree_completed;
        call.cancelled = r.cancelled;
        call.reply_token = r.last_token;
      });
}

runtime::CancelStatus LinkedCheckpointStore::request_cancel(const runtime::LeaseKey& key) {
  return handled<runtime::CancelStatus>(
      wire_, lease_call(StoreOp::kCancel, wire_.to_name, key, {}, 0, 0), "cancel",
      [&] { return target_.request_cancel(key); },
      [](const runtime::CancelStatus& r, StoreCall& call) {
        call.outcome = std::string(runtime::to_string(r));
      });
}

void LinkedPlacementQueue::place(const runtime::LeaseKey& key, const std::string& workflow,
                                 const std::optional<runtime::LeaseKey>& parent) {
  StoreCall call = lease_call(StoreOp::kPlace, wire_.to_name, key, {}, 0, 0);
  call.argument = workflow;
  call.parent = parent;
  handled<bool>(
      wire_, std::move(call), "place",
      [&] {
        target_.place(key, workflow, parent);
        return true;
      },
      [](bool, StoreCall& c) { c.outcome = "ok"; });
}

std::vector<runtime::Placement> LinkedPlacementQueue::pending() {
  // Polled every second by every instance: not recorded (as in the simulation), but it crosses
  // the same network.
  return unrecorded<std::vector<runtime::Placement>>(wire_, "pending",
                                                     [&] { return target_.pending(); });
}

void LinkedPlacementQueue::finish(const runtime::LeaseKey& key) {
  handled<bool>(
      wire_, lease_call(StoreOp::kFinish, wire_.to_name, key, {}, 0, 0), "finish",
      [&] {
        target_.finish(key);
        return true;
      },
      [](bool, StoreCall& c) { c.outcome = "ok"; });
}

std::optional<runtime::Placement> LinkedPlacementQueue::find(const runtime::LeaseKey& key) {
  return unrecorded<std::optional<runtime::Placement>>(wire_, "find",
                                                      [&] { return target_.find(key); });
}

runtime::SinkReply LinkedSink::write(const runtime::SinkWrite& write) {
  StoreCall call;
  call.op = StoreOp::kWrite;
  call.store = target_.name();
  call.token = write.token;
  call.scope_key = write.scope_key;
  call.argument = write.idempotency_key;
  call.payload = write.payload;
  return handled<runtime::SinkReply>(
      wire_, std::move(call), "write " + target_.name(), [&] { return target_.write(write); },
      [](const runtime::SinkReply& r, StoreCall& c) {
        c.outcome = std::string(runtime::to_string(r.outcome));
        c.reply_token = r.high_water;
      });
}

}  // namespace fencesim::real
