#include "sim/network.h"

#include <algorithm>

namespace fencesim::sim {

Network::Network(Scheduler& scheduler, Rng rng, NetworkOptions options,
                 std::function<void(NodeId, NodeId, const std::string&, const char*)> lost)
    : scheduler_(scheduler), rng_(rng), options_(options), lost_(std::move(lost)) {}

std::optional<LinkTrouble> Network::trouble(NodeId node) const {
  auto it = troubles_.find(node);
  if (it == troubles_.end()) return std::nullopt;
  // Windows that overlap all act: a delay opened inside a store's down window does not bring the
  // store back, and a drop window does not cancel a delay. Latencies add; the chances of a drop
  // (or a duplicate) are independent, so a message escapes only if it escapes every window.
  std::optional<LinkTrouble> open;
  double kept = 1;
  double single = 1;
  for (const LinkTrouble& t : it->second) {
    if (t.until_ns <= scheduler_.now_ns()) continue;
    if (!open) open.emplace();
    open->extra_latency_ns += t.extra_latency_ns;
    kept *= 1 - t.drop_probability;
    single *= 1 - t.duplicate_probability;
    open->down = open->down || t.down;
  }
  if (open) {
    open->drop_probability = 1 - kept;
    open->duplicate_probability = 1 - single;
  }
  return open;
}

bool Network::partitioned(NodeId a, NodeId b) const {
  auto it = partitions_.find({std::min(a, b), std::max(a, b)});
  return it != partitions_.end() && it->second > scheduler_.now_ns();
}

void Network::add_node_trouble(NodeId node, LinkTrouble trouble) {
  std::vector<LinkTrouble>& open = troubles_[node];
  // Ended windows are dropped here, so that each send looks only at the few that may be open.
  std::erase_if(open, [&](const LinkTrouble& t) { return t.until_ns <= scheduler_.now_ns(); });
  open.push_back(trouble);
}

void Network::add_partition(NodeId a, NodeId b, std::int64_t until_ns) {
  std::int64_t& until = partitions_[{std::min(a, b), std::max(a, b)}];
  until = std::max(until, until_ns);
}

void Network::delay_in_flight(NodeId node, std::int64_t delay_ns) {
  std::int64_t& until = in_flight_delay_until_[node];
  until = std::max(until, scheduler_.now_ns() + delay_ns);
}

void Network::hold_sends(NodeId node, std::int64_t until_ns) {
  std::int64_t& until = hold_sends_until_[node];
  until = std::max(until, until_ns);
}

void Network::forget_holds(NodeId node) {
  if (auto held = held_sends_.find(node); held != held_sends_.end()) {
    for (const HeldSend& send : held->second) {
      if (send.leaves_ns > scheduler_.now_ns()) *send.died = true;
    }
    held_sends_.erase(held);
  }
  hold_sends_until_.erase(node);
  in_flight_delay_until_.erase(node);
}

std::int64_t Network::leaves_at(NodeId from) const {
  std::int64_t leaves = scheduler_.now_ns();
  for (const auto* holds : {&in_flight_delay_until_, &hold_sends_until_}) {
    auto it = holds->find(from);
    if (it != holds->end()) leaves = std::max(leaves, it->second);
  }
  return leaves;
}

std::int64_t Network::latency(const Ends& ends, bool counted) {
  std::int64_t latency = rng_.between(options_.latency_min_ns, options_.latency_max_ns);
  for (const End& end : ends) {
    if (end.trouble) {
      const std::int64_t before = latency;
      latency += end.trouble->extra_latency_ns;
      // Measured on the latency itself: a window that adds nothing delayed nothing.
      if (ledger_ && counted && latency > before) {
        ledger_->message_delayed(end.node, scheduler_.now_ns());
      }
    }
  }
  return latency;
}

void Network::send(NodeId from, NodeId to, const std::string& what, Callback deliver) {
  ++sent_;
  // Counted before any window is looked at: the chances a fault had, whatever it then did.
  if (ledger_) ledger_->message_sent(from, to, scheduler_.now_ns());
  // For an explorer: the message's delivery runs at `to`, and a draw that can differ (a latency
  // out of a range, a drop or duplicate chance) makes two sends' order matter.
  scheduler_.note_touch(to);
  // What the windows open at each end do, worked out once: nothing in a send moves the clock.
  const Ends ends{End{from, trouble(from)}, End{to, trouble(to)}};
  if (scheduler_.chooser() != nullptr) {
    bool shaped = options_.latency_min_ns != options_.latency_max_ns;
    for (const End& end : ends) {
      const std::optional<LinkTrouble>& t = end.trouble;
      if (t && (t->drop_probability > 0 || t->duplicate_probability > 0)) shaped = true;
    }
    if (shaped) scheduler_.note_touch(kTouchNetworkRng);
  }
  for (const End& end : ends) {
    const NodeId node = end.node;
    const std::optional<LinkTrouble>& t = end.trouble;
    if (t && (t->down || (t->drop_probability > 0 && rng_.chance(t->drop_probability)))) {
      ++lost_count_;
      if (ledger_) ledger_->message_dropped(node, scheduler_.now_ns());
      lost_(from, to, what, t->down ? "node unreachable" : "dropped");
      notify_send_watches(from, leaves_at(from), std::nullopt);
      return;
    }
  }
  const std::int64_t leaves = leaves_at(from);
  const std::int64_t first_latency = latency(ends);
  const std::optional<LinkTrouble>& duplicate = ends[1].trouble;
  const bool twice = duplicate && duplicate->duplicate_probability > 0 &&
                     rng_.chance(duplicate->duplicate_probability);
  // A second copy comes soon after the first (the network duplicated it), or long after it, up
  // to past a lease's ttl (a copy stuck in a queue, a proxy's retry after its own timeout): a
  // stale request that lands after its sender moved on, the case a token must refuse.
  std::int64_t second_latency = 0;
  if (twice && ledger_) ledger_->message_duplicated(to, scheduler_.now_ns());
  if (twice) {
    second_latency = latency(ends, /*counted=*/false);
    if (rng_.chance(0.5)) second_latency += rng_.between(1, 45) * 1'000'000'000;
  }
  const std::int64_t arrival = leaves + first_latency;
  notify_send_watches(from, leaves, arrival);
  auto message = std::make_shared<Message>(Message{from, to, what, std::move(deliver)});
  if (leaves <= scheduler_.now_ns()) {
    scheduler_.at(arrival, [this, message] { arrive(message); });
    if (twice) scheduler_.at(arrival + second_latency, [this, message] { arrive(message); });
    return;
  }
  // Held by a pause: it leaves at the pause's planned end, or when a heal ends the pause sooner
  // (then the planned arrivals do nothing).
  if (ledger_) ledger_->send_held(from, scheduler_.now_ns());
  auto left_early = std::make_shared<bool>(false);
  auto died = std::make_shared<bool>(false);
  std::vector<HeldSend>& held = held_sends_[from];
  // What has left already is on the wire, out of a death's reach (forget_holds).
  std::erase_if(held, [&](const HeldSend& send) { return send.leaves_ns <= scheduler_.now_ns(); });
  held.push_back(HeldSend{leaves, died});
  auto arrive_unless_left = [this, left_early, died, message] {
    if (!*left_early && !*died) arrive(message);
  };
  scheduler_.at(arrival, arrive_unless_left);
  if (twice) scheduler_.at(arrival + second_latency, arrive_unless_left);
  note_held(leaves, [this, left_early, died, message, first_latency, second_latency, twice] {
    *left_early = true;
    if (*died) return;
    const std::int64_t now = scheduler_.now_ns();
    scheduler_.at(now + first_latency, [this, message] { arrive(message); });
    if (twice) {
      scheduler_.at(now + first_latency + second_latency, [this, message] { arrive(message); });
    }
  });
}

void Network::notify_send_watches(NodeId from, std::int64_t leaves_ns,
                                  std::optional<std::int64_t> arrives_ns) {
  auto it = send_watches_.find(from);
  if (it == send_watches_.end()) return;
  // Taken out first: a watch may ask to watch the node's next message again.
  std::vector<SendWatch> watches = std::move(it->second);
  send_watches_.erase(it);
  for (SendWatch& watch : watches) watch(leaves_ns, arrives_ns);
}

void Network::note_held(std::int64_t until_ns, Callback on_heal) {
  held_.push_back(Held{until_ns, std::move(on_heal)});
}

void Network::heal() {
  troubles_.clear();
  partitions_.clear();
  in_flight_delay_until_.clear();
  hold_sends_until_.clear();
  held_sends_.clear();  // what was held leaves now (or died with its process already)
  send_watches_.clear();  // no fault fires in the quiet phase
  const std::int64_t now = scheduler_.now_ns();
  std::vector<Held> held = std::move(held_);
  held_.clear();
  for (Held& h : held) {
    if (h.until_ns > now) h.on_heal();
  }
}

void Network::resumed(NodeId node) {
  auto it = inbox_.find(node);
  if (it == inbox_.end()) return;
  std::vector<Callback> ready = std::move(it->second);
  inbox_.erase(it);
  // Fisher-Yates with the network's stream: the same seed takes them in the same order.
  for (std::size_t i = ready.size(); i > 1; --i) {
    std::swap(ready[i - 1], ready[rng_.below(i)]);
  }
  if (ready.size() > 1) scheduler_.note_touch(kTouchNetworkRng);
  const std::int64_t now = scheduler_.now_ns();
  for (Callback& run : ready) scheduler_.at(now, std::move(run));
}

void Network::arrive(const MessagePtr& message) {
  const NodeId from = message->from;
  const NodeId to = message->to;
  const std::int64_t now = scheduler_.now_ns();
  // Counted before any window is looked at: the chances a fault had, whatever it then did.
  if (ledger_) ledger_->message_arriving(from, to, now);
  // A migration holds the messages of its node until it is over.
  for (NodeId node : {from, to}) {
    auto it = in_flight_delay_until_.find(node);
    if (it != in_flight_delay_until_.end() && it->second > now) {
      if (ledger_) ledger_->in_flight_held(node, now);
      auto left_early = std::make_shared<bool>(false);
      // Held for its destination (a paused store reads nothing): it dies if that process does.
      const std::uint64_t unread = node == to ? crashes(to) : kNotUnread;
      scheduler_.at(it->second, [this, left_early, message, unread] {
        if (!*left_early && !died_unread(message, unread)) arrive(message);
      });
      // A heal before the migration's end lets the message go on now.
      note_held(it->second, [this, left_early, message, unread] {
        *left_early = true;
        if (died_unread(message, unread)) return;
        scheduler_.at(scheduler_.now_ns(), [this, message] { arrive(message); });
      });
      return;
    }
  }
  if (partitioned(from, to)) {
    ++lost_count_;
    if (ledger_) ledger_->message_cut(from, to, now);
    lost_(from, to, message->what, "partitioned");
    return;
  }
  if (auto it = down_.find(to); it != down_.end() && it->second) {
    ++lost_count_;
    if (ledger_) ledger_->message_refused(to, now);
    lost_(from, to, message->what, "destination down");
    return;
  }
  if (paused_ && paused_(to)) {
    // A paused process reads its socket only after it resumes.
    if (ledger_) ledger_->inbox_held(to, now);
    inbox_[to].push_back([this, message, unread = crashes(to)] {
      if (!died_unread(message, unread)) arrive(message);
    });
    return;
  }
  // Run through a copy of the pointer: the delivery may send, and must not outlive its message.
  const MessagePtr keep = message;
  keep->deliver();
}

bool Network::died_unread(const MessagePtr& message, std::uint64_t unread) {
  if (unread == kNotUnread || crashes(message->to) == unread) return false;
  ++lost_count_;
  lost_(message->from, message->to, message->what, "its reader crashed before reading it");
  return true;
}

}  // namespace fencesim::sim
