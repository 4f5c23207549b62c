#include "scenarios/workload.h"

#include <fmt/format.h>

#include <charconv>
#include <set>

#include "runtime/errors.h"

namespace fencesim::scenarios {

runtime::StepItem work_step(std::string name, runtime::Nanoseconds duration) {
  return runtime::StepItem{
      std::move(name), [duration](runtime::ExecutionContext& ctx) { ctx.env().sleep(duration); }};
}

runtime::StepItem declared_step(std::string name, std::vector<DeclaredEffect> effects,
                                runtime::StepBody body) {
  return runtime::StepItem{std::move(name), DeclaredStep{std::move(effects), std::move(body)}};
}

runtime::StepItem with_body(const runtime::StepItem& step, runtime::StepBody body) {
  if (const auto* declared = step.body.target<DeclaredStep>()) {
    return declared_step(step.name, declared->effects, std::move(body));
  }
  return runtime::StepItem{step.name, std::move(body)};
}

runtime::StepItem write_step(sim::World& world, std::string name, runtime::Nanoseconds duration,
                             std::string sink, std::string payload) {
  std::vector<DeclaredEffect> effects{{sink, "write"}};
  return declared_step(std::move(name), std::move(effects),
                       [&world, duration, sink = std::move(sink),
                        payload = std::move(payload)](runtime::ExecutionContext& ctx) {
                         ctx.env().sleep(duration);
                         write_effect(world, ctx, sink, "write", payload);
                       });
}

namespace {

void append_part(std::string& out, std::string_view part) {
  out += std::to_string(part.size());
  out += ':';
  out += part;
}

// Reads "<bytes>:<part>" at `at`; advances `at`.
std::optional<std::string> read_part(std::string_view text, std::size_t& at) {
  const std::size_t colon = text.find(':', at);
  if (colon == std::string_view::npos || colon == at || colon - at > 9) return std::nullopt;
  std::size_t length = 0;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + colon, length);
  if (error != std::errc() || end != text.data() + colon) return std::nullopt;
  if (text.size() - (colon + 1) < length) return std::nullopt;
  std::string part(text.substr(colon + 1, length));
  at = colon + 1 + length;
  return part;
}

}  // namespace

std::string effect_identity(const runtime::LeaseKey& tree, std::string_view step_path,
                            std::string_view effect) {
  std::string out = "effect/";
  append_part(out, tree.tenant_id);
  append_part(out, tree.lease_execution_id);
  append_part(out, step_path);
  append_part(out, effect);
  out += '=';
  return out;
}

std::optional<EffectIdentity> parse_effect_identity(std::string_view payload) {
  constexpr std::string_view kPrefix = "effect/";
  if (!payload.starts_with(kPrefix)) return std::nullopt;
  std::size_t at = kPrefix.size();
  std::optional<std::string> parts[4];
  for (auto& part : parts) {
    part = read_part(payload, at);
    if (!part) return std::nullopt;
  }
  if (at >= payload.size() || payload[at] != '=') return std::nullopt;
  return EffectIdentity{runtime::LeaseKey{std::move(*parts[0]), std::move(*parts[1])},
                        std::move(*parts[2]), std::move(*parts[3]), at + 1};
}

namespace {

// The ADR's error classes as the workload knows them, most derived first: an error is recorded as
// the first it is an instance of.
std::string_view error_class(const runtime::ExecutionError& error) {
  using namespace runtime;
  if (dynamic_cast<const WithdrawalRefusedError*>(&error)) return "WithdrawalRefusedError";
  if (dynamic_cast<const ExecutionFencedError*>(&error)) return "ExecutionFencedError";
  if (dynamic_cast<const ExecutionLeaseLostError*>(&error)) return "ExecutionLeaseLostError";
  if (dynamic_cast<const ExecutionCancelledError*>(&error)) return "ExecutionCancelledError";
  if (dynamic_cast<const ExecutionContextUnavailableError*>(&error)) {
    return "ExecutionContextUnavailableError";
  }
  if (dynamic_cast<const AggregateError*>(&error)) return "AggregateError";
  if (dynamic_cast<const StepError*>(&error)) return "StepError";
  return "ExecutionError";
}

// What a call through the fence threw, as the body caught it: the class of the thrown object
// itself (not of its causes), at the fence's lease and token. A refusal the runtime handed to the
// body (ExecutionFencedError) tells the oracles that this holder was stopped by a refusal.
void record_thrown(sim::World& world, runtime::ExecutionContext& ctx,
                   const runtime::LeaseKey& lease, runtime::Token token, std::string_view call,
                   const std::exception_ptr& failure) {
  std::string thrown = "std::exception";
  try {
    std::rethrow_exception(failure);
  } catch (const runtime::ExecutionError& error) {
    thrown = std::string(error_class(error));
  } catch (...) {
  }
  world.observe(
      ctx,
      sim::World::Observation{
          "thrown", lease, token, std::string(call), {}, world.true_now_ns(), std::move(thrown)});
}

runtime::SinkReply write_intended(sim::World& world, runtime::ExecutionContext& ctx,
                                  const std::string& sink, std::string_view effect,
                                  const std::string& payload, bool at_most_once) {
  const runtime::ExecutionFence fence = ctx.fence();
  const runtime::Token token = fence.token();
  const runtime::LeaseKey lease{fence.tenant_id(), fence.lease_execution_id()};
  const std::string sent = effect_identity(ctx.tree_key(), ctx.path(), effect) + payload;
  world.intend(ctx, sink, effect, sent, token, at_most_once);
  sim::World::Observation seen{"write", lease, token, sink, std::string(effect),
                               world.true_now_ns(), {}};
  std::optional<runtime::SinkReply> reply;
  std::exception_ptr failure;
  try {
    reply = fence.write(world.sink(ctx, sink), effect, sent);
  } catch (const std::exception& error) {
    // Recorded outside the catch (never blocking inside one): what the body saw is the error it
    // is about to get.
    seen.outcome = std::string("error: ") + error.what();
    failure = std::current_exception();
  }
  if (!failure) seen.outcome = std::string(runtime::to_string(reply->outcome));
  world.observe(ctx, std::move(seen));
  if (failure) record_thrown(world, ctx, lease, token, "write", failure);
  // What the body sees of its fence right after the call: after a refusal or a loss, no future
  // confirmedUntil and an assertHeld that throws.
  read_fence(world, ctx);
  if (failure) {
    record_errors(world, ctx, "write", failure);
    std::rethrow_exception(failure);
  }
  return *reply;
}

}  // namespace

runtime::SinkReply write_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                const std::string& sink, std::string_view effect,
                                const std::string& payload) {
  return write_intended(world, ctx, sink, effect, payload, false);
}

runtime::SinkReply write_withdrawal_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                           const std::string& sink, std::string_view effect,
                                           const std::string& payload) {
  return write_intended(world, ctx, sink, effect, payload, true);
}

runtime::Nanoseconds confirm_now(sim::World& world, runtime::ExecutionContext& ctx) {
  const runtime::ExecutionFence fence = ctx.fence();
  sim::World::Observation seen{"confirm",
                               {fence.tenant_id(), fence.lease_execution_id()},
                               fence.token(),
                               {},
                               {},
                               world.true_now_ns(),
                               {}};
  runtime::Nanoseconds confirmed_until = 0;
  std::exception_ptr failure;
  try {
    confirmed_until = fence.confirm_now();
  } catch (const std::exception& error) {
    seen.outcome = std::string("error: ") + error.what();
    failure = std::current_exception();
  }
  if (!failure) seen.outcome = "confirmed";
  const runtime::LeaseKey lease = seen.lease;
  const runtime::Token token = seen.token;
  world.observe(ctx, std::move(seen));
  if (failure) record_thrown(world, ctx, lease, token, "confirm", failure);
  read_fence(world, ctx);
  if (failure) {
    record_errors(world, ctx, "confirm", failure);
    std::rethrow_exception(failure);
  }
  return confirmed_until;
}

void read_fence(sim::World& world, runtime::ExecutionContext& ctx) {
  const runtime::ExecutionFence fence = ctx.fence();
  runtime::LeaseKey lease;
  runtime::Token token = runtime::kTokenNone;
  runtime::Nanoseconds until = 0;
  try {
    lease = {fence.tenant_id(), fence.lease_execution_id()};
    token = fence.token();
    until = fence.confirmed_until_ns();
  } catch (const runtime::ExecutionContextUnavailableError&) {
    return;  // no fence in this frame (ended step, rebuilt frame): nothing to read
  }
  std::string held = "held";
  try {
    fence.assert_held();
  } catch (const std::exception& error) {
    const auto* execution = dynamic_cast<const runtime::ExecutionError*>(&error);
    held = "lost " + (execution != nullptr ? std::string(execution->code()) : std::string("?"));
  }
  world.observe(ctx, sim::World::Observation{"fence", std::move(lease), token, {}, {},
                                             world.true_now_ns(),
                                             fmt::format("until {} {}", until, held)});
}

void record_withdrawal_frame(sim::World& world, runtime::ExecutionContext& ctx,
                             const std::string& named_path) {
  runtime::Token token = runtime::kTokenNone;
  try {
    token = ctx.fence().token();
  } catch (const runtime::ExecutionContextUnavailableError&) {
    token = runtime::kTokenNone;
  }
  world.observe(ctx, sim::World::Observation{"withdrawal", ctx.tree_key(), token, named_path, {},
                                             world.true_now_ns(),
                                             token == runtime::kTokenNone ? "unfenced" : "fenced"});
}

void record_withdrawal_body_returned(sim::World& world, runtime::ExecutionContext& ctx,
                                     runtime::Token token) {
  world.observe(ctx, sim::World::Observation{"withdrawal-body-returned", ctx.tree_key(), token, {},
                                             {}, world.true_now_ns(), "returned"});
}

void for_each_error(
    const std::exception_ptr& error,
    const std::function<void(const std::exception_ptr&, const std::exception&)>& visit) {
  // The identity set only stops the walk: no address reaches the history.
  std::vector<std::exception_ptr> pending{error};
  std::set<const void*> visited;
  while (!pending.empty() && visited.size() < 64) {
    const std::exception_ptr current = std::move(pending.back());
    pending.pop_back();
    if (current == nullptr) continue;
    std::vector<std::exception_ptr> children;
    try {
      std::rethrow_exception(current);
    } catch (const std::exception& thrown) {
      if (!visited.insert(&thrown).second) continue;
      visit(current, thrown);
      if (const auto* execution = dynamic_cast<const runtime::ExecutionError*>(&thrown)) {
        if (const auto* aggregate = dynamic_cast<const runtime::AggregateError*>(&thrown)) {
          children = aggregate->errors();
        }
        children.push_back(execution->cause());
      }
      if (const auto* nested = dynamic_cast<const std::nested_exception*>(&thrown)) {
        children.push_back(nested->nested_ptr());
      }
    } catch (...) {
    }
    for (auto child = children.rbegin(); child != children.rend(); ++child) {
      pending.push_back(std::move(*child));
    }
  }
}

void record_errors(sim::World& world, runtime::ExecutionContext& ctx, std::string_view where,
                   const std::exception_ptr& error) {
  std::vector<std::pair<std::string, std::string>> seen;  // (class, code)
  for_each_error(error, [&seen](const std::exception_ptr&, const std::exception& thrown) {
    if (const auto* execution = dynamic_cast<const runtime::ExecutionError*>(&thrown)) {
      seen.emplace_back(error_class(*execution), execution->code());
    }
  });
  const runtime::LeaseKey& tree = ctx.tree_key();
  for (auto& [name, code] : seen) {
    world.observe(ctx, sim::World::Observation{"error", tree, runtime::kTokenNone,
                                               std::string(where), std::move(name),
                                               world.true_now_ns(), std::move(code)});
  }
}

}  // namespace fencesim::scenarios
