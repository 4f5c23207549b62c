#pragma once
// A downstream system that checks tokens its own way and reports the token it last saw: what an
// application's step meets when it passes its fence's token to another service (an inventory
// service, a ledger of another team) that keeps a high-water mark of its own. ADR-0023 gives the
// step fenced(observedToken) for its rejections: "seen token T" becomes the hand-over error, and
// the holder of the step's token is stopped, whatever T is.
//
// What it reports is the token of the LAST call it received (whatever that call's verdict), not
// the mark it checked against: a newer token after a takeover's call, the caller's own token when
// the caller retries a call that already landed (strict mode), an older one when a stale caller's
// rejected call came in between. Its checks, drawn per seed (DownstreamRules):
// - keyed by the lease key (tenant, execution id), rejecting a token below its mark, or, strict,
//   not above it (a token may be used once: a retry of a call that landed is rejected);
// - keyed by the tenant alone: the shared aggregate the ADR warns against, which rejects healthy
//   holders of one tree after another tree of the tenant went further (always non-strict, so that
//   every tree gets through once its epoch caught up); in the quiet phase it keys by the lease key
//   (the misconfiguration ends with the faults, so that liveness can be judged).
// A call crosses the world's time: its request is decided when it lands (a world timer, so a
// request sent before its caller paused lands while it is paused), and its reply comes back a
// latency later. In the safety phase a share of calls are slow (decided and answered seconds
// later) or lost (never decided): the caller's deadline passes first and it sees "unavailable",
// not knowing whether its call landed.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "runtime/execution_context.h"
#include "sim/world.h"

namespace fencesim::scenarios {

struct DownstreamRules {
  bool keyed_by_tenant = false;
  bool strict = false;
  double slow_share = 0.2;  // of calls in the safety phase: decided after the caller's deadline
  double lost_share = 0.1;  // of calls in the safety phase: never decided
  // The first call under each key lands and is decided, and its reply is lost, in any phase: the
  // caller sees "unavailable" at its deadline, and its retry with the same token is rejected by a
  // strict downstream, reporting the caller's own token, while the caller's lease is believed
  // and held (a hand-over of a healthy holder). No draw: the other calls draw as they did.
  bool first_reply_lost = false;
  // One rejection in twenty reports a token above 2^53-1 (see decide()); a story that needs every
  // rejection handed over by the body's own error turns it off.
  bool garbles = true;
};

// The rules of a seed, drawn from `rng`: keyed by the lease key in four seeds in five (half of
// them strict), by the tenant in one.
DownstreamRules draw_downstream_rules(sim::Rng& rng);

class DownstreamSystem {
 public:
  enum class Verdict { kAccepted, kRejected, kUnavailable };
  struct Reply {
    Verdict verdict = Verdict::kUnavailable;
    runtime::Token seen = runtime::kTokenNone;  // rejected: the token it last saw
  };

  DownstreamSystem(sim::World& world, DownstreamRules rules);

  // From a step: a call carrying `token` for the step's tree. Waits for the reply, or for the
  // caller's deadline (2 s), whichever comes first.
  Reply call(runtime::ExecutionContext& ctx, runtime::Token token);

  const DownstreamRules& rules() const { return rules_; }

 private:
  struct Mark {
    runtime::Token high_water = runtime::kTokenNone;  // the highest token accepted
    runtime::Token last_seen = runtime::kTokenNone;   // the token of the last call received
  };
  using Key = std::pair<std::string, std::string>;
  Reply decide(const Key& key, runtime::Token token);

  sim::World& world_;
  DownstreamRules rules_;
  std::shared_ptr<sim::Rng> rng_;
  std::map<Key, Mark> marks_;
  std::set<Key> called_;  // the keys a call was made under (first_reply_lost)
};

}  // namespace fencesim::scenarios
