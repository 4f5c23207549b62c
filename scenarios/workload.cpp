#include "scenarios/workload.h"

#include <charconv>

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

runtime::SinkReply write_intended(sim::World& world, runtime::ExecutionContext& ctx,
                                  const std::string& sink, std::string_view effect,
                                  const std::string& payload, bool at_most_once) {
  const runtime::ExecutionFence fence = ctx.fence();
  const runtime::Token token = fence.token();
  const runtime::LeaseKey lease{fence.tenant_id(), fence.lease_execution_id()};
  const std::string sent = effect_identity(ctx.tree_key(), ctx.path(), effect) + payload;
  world.intend(ctx, sink, effect, sent, token, at_most_once);
  sim::World::Observation seen{"write", lease, token, sink, std::string(effect),
                               world.scheduler().now_ns(), {}};
  std::optional<runtime::SinkReply> reply;
  try {
    reply = fence.write(world.sink(ctx, sink), effect, sent);
  } catch (const std::exception& error) {
    // Recorded here, never blocking: what the body saw is the error it is about to get.
    seen.outcome = std::string("error: ") + error.what();
    world.observe(ctx, std::move(seen));
    throw;
  }
  seen.outcome = std::string(runtime::to_string(reply->outcome));
  world.observe(ctx, std::move(seen));
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
                               world.scheduler().now_ns(),
                               {}};
  runtime::Nanoseconds confirmed_until = 0;
  try {
    confirmed_until = fence.confirm_now();
  } catch (const std::exception& error) {
    seen.outcome = std::string("error: ") + error.what();
    world.observe(ctx, std::move(seen));
    throw;
  }
  seen.outcome = "confirmed";
  world.observe(ctx, std::move(seen));
  return confirmed_until;
}

}  // namespace fencesim::scenarios
