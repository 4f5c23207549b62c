#include "scenarios/downstream_system.h"

#include <fmt/format.h>

#include <algorithm>

namespace fencesim::scenarios {

using runtime::kMillisecond;
using runtime::kSecond;

namespace {

// How long the calling application waits for a reply before it gives the call up.
constexpr runtime::Nanoseconds kCallerDeadlineNs = 2 * kSecond;

}  // namespace

DownstreamRules draw_downstream_rules(sim::Rng& rng) {
  DownstreamRules rules;
  const std::uint64_t kind = rng.below(10);
  rules.keyed_by_tenant = kind < 2;
  rules.strict = !rules.keyed_by_tenant && kind < 6;
  return rules;
}

DownstreamSystem::DownstreamSystem(sim::World& world, DownstreamRules rules)
    : world_(world), rules_(rules), rng_(std::make_shared<sim::Rng>(world.stream("downstream"))) {}

DownstreamSystem::Reply DownstreamSystem::decide(const Key& key, runtime::Token token) {
  Mark& mark = marks_[key];
  Reply reply;
  const bool below = rules_.strict ? token <= mark.high_water : token < mark.high_water;
  if (mark.high_water != runtime::kTokenNone && below) {
    reply = Reply{Verdict::kRejected, mark.last_seen};
    // One rejection in twenty reports a token above 2^53-1 (a downstream whose token column
    // overflowed, or that reads another field): no token (ADR-0023: tokens are safe integers), yet
    // a rejection the caller hands over (issue 29 item 4). Drawn from a stream named by the call,
    // so that every other draw of the seed stays.
    if (rules_.garbles) {
      sim::Rng garble = world_.stream(fmt::format("downstream-garbled/{}/{}/{}/{}", key.first,
                                                  key.second, token, mark.last_seen));
      if (garble.chance(0.05)) reply.seen = runtime::kTokenMax + 1 + garble.below(1000);
    }
  } else {
    reply = Reply{Verdict::kAccepted, token};
    mark.high_water = std::max(mark.high_water, token);
  }
  mark.last_seen = token;
  return reply;
}

DownstreamSystem::Reply DownstreamSystem::call(runtime::ExecutionContext& ctx,
                                               runtime::Token token) {
  const runtime::LeaseKey& tree = ctx.tree_key();
  const std::int64_t now_ns = world_.true_now_ns();
  const bool troubled = now_ns < world_.options().safety_phase_ns;
  // The tenant-wide mark is a misconfiguration (the shared aggregate the ADR warns against): it
  // fences healthy holders until their epoch catches up with the tenant's furthest tree, one pass
  // at a time. Like every fault it ends with the safety phase, so that liveness is judged on a
  // world that lets trees finish (with long steps, catching up took more than the quiet phase:
  // swarm seeds 580, 714, 720 ended live on the correct runtime).
  Key key{tree.tenant_id,
          rules_.keyed_by_tenant && troubled ? std::string() : tree.lease_execution_id};
  const double draw = rng_->unit();
  const bool lost = troubled && draw < rules_.lost_share;
  const bool slow = troubled && !lost && draw < rules_.lost_share + rules_.slow_share;
  const runtime::Nanoseconds out_ns = rng_->between(1, 20) * kMillisecond;
  const runtime::Nanoseconds back_ns = rng_->between(1, 20) * kMillisecond;
  // A slow call lands well after the deadline, whatever the caller's clock drift.
  const runtime::Nanoseconds extra_ns = slow ? rng_->between(3'000, 8'000) * kMillisecond : 0;
  auto decided = std::make_shared<std::optional<Reply>>();
  if (!lost) {
    // Decided where it lands, when it lands: the world's timer, not the caller's fiber, so that
    // a request in flight lands even while its caller is paused.
    world_.scheduler().at(now_ns + out_ns + extra_ns,
                          [this, key, token, decided] { *decided = decide(key, token); });
  }
  const bool reply_lost = rules_.first_reply_lost && called_.insert(key).second;
  const runtime::Nanoseconds wait_ns =
      lost || slow || reply_lost ? kCallerDeadlineNs : out_ns + extra_ns + back_ns;
  ctx.env().sleep(wait_ns);
  if (lost || slow || reply_lost || !decided->has_value()) return Reply{};
  return **decided;
}

}  // namespace fencesim::scenarios
