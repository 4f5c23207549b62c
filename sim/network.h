#pragma once
// Requests and replies between simulated nodes, with latency, loss, duplication, partitions and
// per-node delay windows. A request is handled at its destination when it arrives, whatever its
// sender is doing by then: a request sent just before a pause lands after the takeover. The caller
// waits for the reply up to a timeout; no reply (lost, partitioned, store down) is
// StoreUnavailableError, and the caller cannot know whether the request took effect.
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/store_errors.h"
#include "sim/callback.h"
#include "sim/fault_ledger.h"
#include "sim/random.h"
#include "sim/scheduler.h"

namespace fencesim::sim {

struct NetworkOptions {
  std::int64_t latency_min_ns = 1'000'000;      // 1 ms
  std::int64_t latency_max_ns = 20'000'000;     // 20 ms
  std::int64_t rpc_timeout_ns = 2'000'000'000;  // 2 s
};

// Windows of trouble on a node or a link, set by faults.
struct LinkTrouble {
  std::int64_t until_ns = 0;
  std::int64_t extra_latency_ns = 0;
  double drop_probability = 0;
  double duplicate_probability = 0;
  bool down = false;  // kStoreDown / partition: nothing gets through
};

class Network {
 public:
  // `lost` is told about every lost message (for the history).
  Network(
      Scheduler& scheduler, Rng rng, NetworkOptions options,
      std::function<void(NodeId from, NodeId to, const std::string& what, const char* why)> lost);

  // From a fiber of `from`: runs `handler` at `to` when the request arrives and returns its reply
  // (or rethrows what it threw). Throws StoreUnavailableError when no reply comes in time.
  // `handler` is any callable returning a Reply; it is kept with the call's shared state (one
  // allocation per call), not in a std::function of its own.
  template <typename Reply, typename Handler>
  Reply call(NodeId from, NodeId to, const std::string& what, Handler&& handler);

  void add_node_trouble(NodeId node, LinkTrouble trouble);
  void add_partition(NodeId a, NodeId b, std::int64_t until_ns);
  // Messages from and to `node` that are in flight wait `delay_ns` more (a migration).
  void delay_in_flight(NodeId node, std::int64_t delay_ns);
  // Messages `node` sends from now on leave no earlier than `until_ns` (a paused process).
  void hold_sends(NodeId node, std::int64_t until_ns);
  // The node's process died: the holds its pauses put on its sends and on the messages in flight
  // to and from it end with it, so that its next process sends at once. What was already held
  // leaves as planned (it was on its way before the crash).
  void forget_holds(NodeId node);
  // A store's process died (World's store crash): the requests its pause left unread (held in
  // flight to it, or in its inbox) die with it, as a real socket's unread buffer does; its next
  // process never handles them. An instance's do not need this: what reaches a dead caller finds
  // its call gone.
  void crashed(NodeId node) { ++crashes_[node]; }
  // Whether the node's process answers (set false while a store node is crashed).
  void set_up(NodeId node, bool up) { down_[node] = !up; }
  // Ends every trouble window, partition and migration delay (the quiet phase). A pause or a
  // migration that the heal cuts short ends now: what its node held (requests it sent, messages
  // in flight to and from it) leaves now, and its requests' timeouts count from now, as the
  // resumed process's own timers would, not from the pause's planned end.
  void heal();
  void set_paused_probe(std::function<bool(NodeId)> paused) { paused_ = std::move(paused); }
  // Where the network tells what the faults' windows did to each message (sim/fault_ledger.h).
  void set_ledger(FaultLedger* ledger) { ledger_ = ledger; }
  // The node's process was resumed (or crashed): what waited for it runs now. A stopped process
  // reads nothing and runs no timer, so messages that reached it and its requests' timeouts that
  // fell due meanwhile wait in its inbox; at SIGCONT its sockets and its overdue timers are all
  // ready at once, and the order its event loop takes them in is the OS's, drawn here from the
  // network's stream (a reply that landed during the pause may win over its own timeout, or
  // lose). Each runs through the usual checks again (a partition that began meanwhile still
  // cuts a message).
  void resumed(NodeId node);
  // Calls `watch` once, when `from` next sends a message: with the time it leaves (later than now
  // while the node's sends are held) and the time it arrives (nullopt: lost on the way). For a
  // fault aimed at a message on the wire or at a request's timeout (sim::Aim). Draws nothing.
  using SendWatch = std::function<void(std::int64_t leaves_ns, std::optional<std::int64_t> arrives_ns)>;
  void watch_next_send(NodeId from, SendWatch watch) { send_watches_[from].push_back(std::move(watch)); }
  std::int64_t rpc_timeout_ns() const { return options_.rpc_timeout_ns; }
  // Draws from `rng` from now on (World::reseed).
  void reseed(Rng rng) { rng_ = rng; }

  std::uint64_t messages_sent() const { return sent_; }
  std::uint64_t messages_lost() const { return lost_count_; }

 private:
  // One message on its way. Its copies (a duplicate) and the timers that may deliver it (a held
  // message's planned and healed departures, a paused destination's inbox) share it: the
  // delivery is one closure, made once per message and never copied.
  struct Message {
    NodeId from = kWorldNode;
    NodeId to = kWorldNode;
    std::string what;
    Callback deliver;
  };
  using MessagePtr = std::shared_ptr<Message>;

  // Sends one message: `deliver` runs at `to` when it arrives, unless it is lost on the way.
  void send(NodeId from, NodeId to, const std::string& what, Callback deliver);
  void arrive(const MessagePtr& message);
  // A message's two ends, the sender's then the destination's, with what the windows open at
  // each do together (trouble) when it is sent.
  struct End {
    NodeId node = kWorldNode;
    std::optional<LinkTrouble> trouble;
  };
  using Ends = std::array<End, 2>;
  // One message's latency; `counted` tells the fault ledger of the delay windows that lengthened
  // it (not for a duplicate's second copy: the window had one chance at the send, and acted once).
  std::int64_t latency(const Ends& ends, bool counted = true);
  void notify_send_watches(NodeId from, std::int64_t leaves_ns, std::optional<std::int64_t> arrives_ns);
  // When a message sent by `from` now actually leaves it.
  std::int64_t leaves_at(NodeId from) const;
  // What every window open on `node` does together, or nothing when none is open.
  std::optional<LinkTrouble> trouble(NodeId node) const;
  bool partitioned(NodeId a, NodeId b) const;
  // Something timed by a hold's planned end (`until_ns`): `on_heal` re-times it when the world
  // heals before then. Nothing else changes: without a heal, every message and timeout keeps the
  // time (and the random draws) it had.
  struct Held {
    std::int64_t until_ns = 0;
    Callback on_heal;
  };
  void note_held(std::int64_t until_ns, Callback on_heal);

  Scheduler& scheduler_;
  Rng rng_;
  NetworkOptions options_;
  std::function<void(NodeId, NodeId, const std::string&, const char*)> lost_;
  std::function<bool(NodeId)> paused_;
  FaultLedger* ledger_ = nullptr;
  std::map<NodeId, std::vector<LinkTrouble>> troubles_;
  std::map<std::pair<NodeId, NodeId>, std::int64_t> partitions_;  // (low, high) -> until
  std::map<NodeId, std::int64_t> in_flight_delay_until_;
  std::map<NodeId, std::int64_t> hold_sends_until_;
  // Per node, each of its sends held by a pause: when it leaves, and a flag set when the process
  // dies before then, so that it never leaves (it was in the dead process's buffer, not on the
  // wire; what left already goes on).
  struct HeldSend {
    std::int64_t leaves_ns = 0;
    std::shared_ptr<bool> died;
  };
  std::map<NodeId, std::vector<HeldSend>> held_sends_;
  std::map<NodeId, bool> down_;
  std::map<NodeId, std::uint64_t> crashes_;  // see crashed()
  static constexpr std::uint64_t kNotUnread = ~std::uint64_t{0};  // held for another reason
  std::uint64_t crashes(NodeId node) const {
    auto it = crashes_.find(node);
    return it == crashes_.end() ? 0 : it->second;
  }
  // Whether `message`, held unread for its destination since it had crashed `crashes` times, died
  // with that process (then it is counted and told lost).
  bool died_unread(const MessagePtr& message, std::uint64_t crashes);
  std::vector<Held> held_;  // in the order they were held
  // What waits for a paused node, in the order it fell due (see resumed).
  std::map<NodeId, std::vector<Callback>> inbox_;
  std::map<NodeId, std::vector<SendWatch>> send_watches_;
  std::uint64_t sent_ = 0;
  std::uint64_t lost_count_ = 0;
};

template <typename Reply, typename Handler>
Reply Network::call(NodeId from, NodeId to, const std::string& what, Handler&& handler) {
  // What the request's copies, its replies and its timeouts share with the caller, who may be
  // gone (killed) when they run, the handler with them. One allocation per call; the closures
  // below fit a Callback.
  // Moved once, into the state (a lambda's copies of const values copy when moved).
  using HandlerType = std::decay_t<Handler>;
  struct State {
    explicit State(Handler&& h) : handler(std::forward<Handler>(h)) {}
    HandlerType handler;
    Waiter waiter;
    bool done = false;
    std::optional<Reply> reply;
    std::exception_ptr error;
    std::string reply_what;
  };
  auto state = std::make_shared<State>(std::forward<Handler>(handler));
  state->reply_what = what + " reply";
  // Named by a deadlock report: "the 'take reply'" (the peer is in the report's own line).
  state->waiter.set_awaits(state->reply_what);
  send(from, to, what, [this, state, from, to] {
    std::optional<Reply> reply;
    std::exception_ptr error;
    try {
      reply = state->handler();
    } catch (const std::exception&) {
      error = std::current_exception();
    }
    send(to, from, state->reply_what, [this, state, reply = std::move(reply), error]() mutable {
      if (state->done) return;
      state->done = true;
      // Moved: a later copy of this reply (a duplicate) finds the call done and returns above.
      state->reply = std::move(reply);
      state->error = error;
      scheduler_.wake(state->waiter);
    });
  });
  // A request held in a paused process leaves when the process resumes; its timeout counts from
  // then, as the process's own timer would (from the heal, when the quiet phase resumes it early).
  // The timeout is the caller's own timer: it does not run while the caller is paused (it waits
  // in the caller's inbox, a copy of itself).
  struct TimeOut {
    Network* network;
    std::shared_ptr<State> state;
    NodeId from;
    void operator()() const {
      if (state->done) return;
      if (network->paused_ && network->paused_(from)) {
        network->inbox_[from].push_back(*this);
        return;
      }
      state->done = true;
      network->scheduler_.wake(state->waiter);
    }
  };
  const std::int64_t leaves = leaves_at(from);
  scheduler_.at(leaves + options_.rpc_timeout_ns, TimeOut{this, state, from});
  if (leaves > scheduler_.now_ns()) {
    note_held(leaves, [this, time_out = TimeOut{this, state, from}] {
      scheduler_.at(scheduler_.now_ns() + options_.rpc_timeout_ns, time_out);
    });
  }
  scheduler_.block(state->waiter);
  if (state->error) std::rethrow_exception(state->error);
  if (!state->reply) {
    throw runtime::StoreUnavailableError("no reply to " + what + " within the timeout");
  }
  return std::move(*state->reply);
}

}  // namespace fencesim::sim
