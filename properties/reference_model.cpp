#include "properties/reference_model.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "sim/lease_terms.h"

namespace fencesim::properties {

using std::string_view_literals::operator""sv;

using sim::kLastSafeToken;
using sim::StoreCall;
using sim::StoreOp;

namespace {

// A load's steps as the model keeps them.
std::set<sim::Name> as_set(const std::vector<sim::Name>& steps) {
  std::set<sim::Name> set;
  for (const sim::Name& step : steps) set.insert(step);
  return set;
}

// The recorded lease in a reply, in words.
std::string lease_words(const std::optional<runtime::Lease>& lease) {
  if (!lease) return "no lease";
  return fmt::format("lease(holder {}, token {}, expires {}{})", lease->holder, lease->token,
                     lease->expires_at_ns, lease->released ? ", released" : "");
}

}  // namespace

std::optional<std::string> ReferenceStores::handle(const StoreCall& call) {
  if (call.failed) return std::nullopt;
  switch (call.op) {
    case StoreOp::kTake:
      return take(call);
    case StoreOp::kRenew:
      return renew(call);
    case StoreOp::kRelease:
      return release(call);
    case StoreOp::kRead:
      return read(call);
    case StoreOp::kCommitStep:
    case StoreOp::kCommitTree:
      return commit(call);
    case StoreOp::kLoad:
      return load(call);
    case StoreOp::kWrite:
      return write(call);
    case StoreOp::kCancel:
      return cancel(call);
    case StoreOp::kRestore:
      // A row the store held before the run: the model starts from it, as the store does.
      if (call.lease) {
        leases_.insert_or_assign({call.store, call.key},
                                 ModelLease{call.lease->holder, call.lease->token,
                                            call.lease->expires_at_ns, call.lease->released});
      }
      return std::nullopt;
    case StoreOp::kPlace:
    case StoreOp::kFinish:
      return std::nullopt;  // the queue says what exists; it has no verdict to judge
  }
  return std::nullopt;
}

// take succeeds only when the key has no live lease; it then grants the key's next epoch until the
// store's now + ttl. A live lease refuses every take, its own holder's too.
std::optional<std::string> ReferenceStores::take(const StoreCall& call) {
  const std::int64_t now = call.store_wall_ns;
  auto it = leases_.find({call.store, call.key});
  if (it != leases_.end() && it->second.live_at(now)) {
    const ModelLease& held = it->second;
    if (call.outcome != "held"sv) {
      return fmt::format("the model refuses the take (epoch {} held by {} until {}), the store "
                         "answered '{}' with {}",
                         held.epoch, held.holder, held.expires_at_ns, call.outcome,
                         lease_words(call.lease));
    }
    if (!call.lease || call.lease->token != held.epoch) {
      return fmt::format("the take was refused by epoch {}, the store's reply names {}", held.epoch,
                         lease_words(call.lease));
    }
    return std::nullopt;
  }
  const runtime::Token epoch = it == leases_.end() ? 1 : it->second.epoch + 1;
  // ADR-0023: a token is a safe integer (no bigint); a key whose epochs are spent is refused, an
  // error, never a grant (the store fails the call, which is not judged).
  if (epoch > kLastSafeToken) {
    return fmt::format("the model refuses the take (the key's epochs are spent at {}), the store "
                       "answered '{}' with {}",
                       kLastSafeToken, call.outcome, lease_words(call.lease));
  }
  ModelLease granted{call.holder, epoch, now + call.ttl_ns, false};
  leases_.insert_or_assign({call.store, call.key}, granted);
  if (call.outcome != "taken"sv) {
    return fmt::format("the model grants epoch {} (no live lease), the store answered '{}' with {}",
                       epoch, call.outcome, lease_words(call.lease));
  }
  if (!call.lease || call.lease->token != epoch || call.lease->holder != call.holder ||
      call.lease->expires_at_ns != granted.expires_at_ns || call.lease->released) {
    return fmt::format("the model grants epoch {} to {} until {}, the store granted {}", epoch,
                       call.holder, granted.expires_at_ns, lease_words(call.lease));
  }
  return std::nullopt;
}

// renew extends to now + ttl only the key's current epoch, for its holder, neither released nor
// expired at the store's now. The reason for a refusal is the store's to word: only grant or not is
// judged, and a grant's new expiry.
std::optional<std::string> ReferenceStores::renew(const StoreCall& call) {
  const std::int64_t now = call.store_wall_ns;
  auto it = leases_.find({call.store, call.key});
  const bool grant = it != leases_.end() && it->second.epoch == call.token &&
                     it->second.holder == call.holder && it->second.live_at(now);
  const bool granted = call.outcome == "renewed"sv;
  if (grant) it->second.expires_at_ns = now + call.ttl_ns;
  if (grant != granted) {
    return fmt::format("the model {} the renewal of token {} by {} ({}), the store answered '{}'",
                       grant ? "grants" : "refuses", call.token, call.holder,
                       it == leases_.end()
                           ? std::string("no lease")
                           : fmt::format("epoch {} held by {} until {}{}", it->second.epoch,
                                         it->second.holder, it->second.expires_at_ns,
                                         it->second.released ? ", released" : ""),
                       call.outcome);
  }
  if (grant && (!call.lease || call.lease->expires_at_ns != now + call.ttl_ns ||
                call.lease->token != call.token)) {
    return fmt::format("the model extends token {} until {}, the store's reply names {}",
                       call.token, now + call.ttl_ns, lease_words(call.lease));
  }
  return std::nullopt;
}

// release ends a live lease of that holder and token at once; anything else is refused.
std::optional<std::string> ReferenceStores::release(const StoreCall& call) {
  const std::int64_t now = call.store_wall_ns;
  auto it = leases_.find({call.store, call.key});
  const bool grant = it != leases_.end() && it->second.epoch == call.token &&
                     it->second.holder == call.holder && it->second.live_at(now);
  if (grant) {
    it->second.released = true;
    it->second.expires_at_ns = now;
  }
  if (grant != (call.outcome == "released"sv)) {
    return fmt::format("the model {} the release of token {} by {}, the store answered '{}'",
                       grant ? "grants" : "refuses", call.token, call.holder, call.outcome);
  }
  return std::nullopt;
}

std::optional<std::string> ReferenceStores::read(const StoreCall& call) {
  auto it = leases_.find({call.store, call.key});
  if (it == leases_.end()) {
    if (!call.lease) return std::nullopt;
    return fmt::format("the key was never taken, the store's read returned {}",
                       lease_words(call.lease));
  }
  const ModelLease& lease = it->second;
  if (call.lease && call.lease->token == lease.epoch && call.lease->holder == lease.holder &&
      call.lease->released == lease.released) {
    return std::nullopt;
  }
  return fmt::format("the model's lease is epoch {} of {}{}, the store's read returned {}",
                     lease.epoch, lease.holder, lease.released ? " (released)" : "",
                     lease_words(call.lease));
}

// A checkpoint commits only under the key's current epoch, and not after its holder released it:
// an expired lease nobody took since is still the epoch, and no other holder can have written.
std::optional<std::string> ReferenceStores::commit(const StoreCall& call) {
  auto it = leases_.find({call.store, call.key});
  const runtime::Token epoch = it == leases_.end() ? runtime::kTokenNone : it->second.epoch;
  const bool current = it != leases_.end() && epoch == call.token && !it->second.released;
  // A tree whose cancel was recorded never completes: its current holder's completion is
  // answered "cancelled" (a stale token is still refused as stale).
  const auto model = checkpoints_.find({call.store, call.key});
  const bool cancelled = call.op == StoreOp::kCommitTree && model != checkpoints_.end() &&
                         model->second.cancelled;
  const bool grant = current && !cancelled;
  if (grant) {
    ModelCheckpoint& checkpoint = checkpoints_[{call.store, call.key}];
    if (call.op == StoreOp::kCommitTree) {
      checkpoint.tree = true;
    } else {
      checkpoint.steps.insert(call.argument);
    }
  }
  const std::string what =
      call.op == StoreOp::kCommitTree ? "the tree's completion" : "step '" + call.argument + "'";
  const std::string expected = grant ? "committed" : current ? "cancelled" : "refused";
  if (call.outcome != expected) {
    return fmt::format("the model {} the checkpoint of {} under token {} (epoch {}{}), the store "
                       "answered '{}'",
                       grant ? "commits" : current ? "refuses (cancelled)" : "refuses", what, call.token, epoch,
                       it != leases_.end() && it->second.released ? ", released" : "",
                       call.outcome);
  }
  if (call.reply_token != epoch) {
    return fmt::format("the checkpoint of {} was judged against epoch {}, the model's is {}", what,
                       call.reply_token, epoch);
  }
  return std::nullopt;
}

// A cancel is recorded once, and never for a tree that completed: the cancel and the completion
// exclude each other, judged in the store's order.
std::optional<std::string> ReferenceStores::cancel(const StoreCall& call) {
  ModelCheckpoint& model = checkpoints_[{call.store, call.key}];
  const std::string expected = model.tree        ? "tree-completed"
                               : model.cancelled ? "already-recorded"
                                                 : "recorded";
  if (expected == "recorded") model.cancelled = true;
  if (call.outcome == expected) return std::nullopt;
  return fmt::format("the model answers the cancel of {} '{}', the store answered '{}'",
                     runtime::to_string(call.key), expected, call.outcome);
}

std::optional<std::string> ReferenceStores::load(const StoreCall& call) {
  auto it = checkpoints_.find({call.store, call.key});
  static const ModelCheckpoint kNone;
  const ModelCheckpoint& model = it == checkpoints_.end() ? kNone : it->second;
  if (call.cancelled != model.cancelled) {
    return fmt::format("the loaded checkpoint says cancelled {}, the model's cancel {}",
                       call.cancelled, model.cancelled ? "was recorded" : "was never recorded");
  }
  // The steps as a set: a reply listing them in strictly increasing order is compared as it is
  // (a load per pass, each listing every step checkpointed so far); any other is made a set first.
  const std::vector<sim::Name>& steps = call.completed_steps;
  const bool strictly_increasing =
      std::adjacent_find(steps.begin(), steps.end(), std::greater_equal<>()) == steps.end();
  const bool same_steps =
      strictly_increasing
          ? std::equal(steps.begin(), steps.end(), model.steps.begin(), model.steps.end())
          : as_set(steps) == model.steps;
  if (same_steps && call.tree_completed == model.tree) return std::nullopt;
  const std::set<sim::Name> loaded = as_set(steps);
  std::string missing;
  std::string extra;
  for (const sim::Name& step : model.steps) {
    if (!loaded.contains(step)) missing += " '" + step + "'";
  }
  for (const sim::Name& step : loaded) {
    if (!model.steps.contains(step)) extra += " '" + step + "'";
  }
  return fmt::format("the loaded checkpoint differs from the commits: missing [{} ], never "
                     "committed [{} ], tree completed {} (model {})",
                     missing, extra, call.tree_completed, model.tree);
}

// A sink refuses a token below its scope key's high-water token; otherwise it raises the mark and
// applies the write once per idempotency key, in the same atomic step.
std::optional<std::string> ReferenceStores::write(const StoreCall& call) {
  runtime::Token& high_water = high_water_[{call.store, call.scope_key}];
  std::string expected;
  if (call.token < high_water) {
    expected = "refused";
  } else {
    high_water = call.token;
    expected = applied_.emplace(call.store, call.scope_key, call.argument).second ? "applied"
                                                                                   : "deduplicated";
  }
  if (expected != call.outcome) {
    return fmt::format("the model's sink says '{}' (high-water token {}), sink '{}' answered '{}'",
                       expected, high_water, call.store, call.outcome);
  }
  if (call.reply_token != high_water) {
    return fmt::format("sink '{}' answered high-water token {}, the model's is {}", call.store,
                       call.reply_token, high_water);
  }
  return std::nullopt;
}

}  // namespace fencesim::properties
