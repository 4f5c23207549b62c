#include "sim/store_record.h"

#include <fmt/format.h>

namespace fencesim::sim {

std::string_view to_string(StoreOp op) {
  switch (op) {
    case StoreOp::kTake:
      return "take";
    case StoreOp::kRenew:
      return "renew";
    case StoreOp::kRelease:
      return "release";
    case StoreOp::kRead:
      return "read";
    case StoreOp::kCommitStep:
      return "commit-step";
    case StoreOp::kCommitTree:
      return "commit-tree";
    case StoreOp::kLoad:
      return "load";
    case StoreOp::kPlace:
      return "place";
    case StoreOp::kFinish:
      return "finish";
    case StoreOp::kWrite:
      return "write";
    case StoreOp::kRestore:
      return "restore";
    case StoreOp::kCancel:
      return "cancel";
  }
  return "unknown";
}

std::string_view to_string(runtime::CommitStatus status) {
  switch (status) {
    case runtime::CommitStatus::kCommitted:
      return "committed";
    case runtime::CommitStatus::kCancelled:
      return "cancelled";
    case runtime::CommitStatus::kRefused:
      break;
  }
  return "refused";
}

std::string describe(const StoreCall& call) {
  std::string text = fmt::format("{} at {}", to_string(call.op), call.store);
  if (call.op == StoreOp::kWrite) {
    text += fmt::format(" scope={} token={} idempotency={} payload={}", call.scope_key, call.token,
                        call.argument, call.payload);
  } else {
    text += fmt::format(" key={}", runtime::to_string(call.key));
    if (!call.holder.empty()) text += " holder=" + call.holder;
    if (call.token != runtime::kTokenNone) text += fmt::format(" token={}", call.token);
    if (call.ttl_ns != 0) text += fmt::format(" ttl={}ns", call.ttl_ns);
    if (!call.argument.empty()) text += " arg=" + call.argument;
  }
  text += fmt::format(" store-wall={} -> {}", call.store_wall_ns, call.outcome);
  if (call.lease) {
    text += fmt::format(" lease(holder={} token={} expires={}{})", call.lease->holder,
                        call.lease->token, call.lease->expires_at_ns,
                        call.lease->released ? " released" : "");
  }
  if (call.reply_token != runtime::kTokenNone) text += fmt::format(" reply-token={}", call.reply_token);
  return text;
}

}  // namespace fencesim::sim
