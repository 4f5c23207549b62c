#include "scenarios/window_workload.h"

#include <fmt/format.h>

#include <stdexcept>

#include "runtime/errors.h"
#include "runtime/tree_runner.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

runtime::StepItem busy_write_step(sim::World& world, std::string name,
                                  runtime::Nanoseconds duration, std::string sink,
                                  std::string other_sink, std::shared_ptr<UncheckedSystem> system) {
  // Declared: the two effects every run that ends ok has made (the notice only follows a confirm
  // that returned).
  std::vector<DeclaredEffect> effects{{sink, name}, {sink, "receipt"}};
  return declared_step(
      name, std::move(effects),
      [&world, duration, effect = name, sink = std::move(sink), other_sink = std::move(other_sink),
       system](ExecutionContext& ctx) {
        ctx.env().sleep(duration);
        write_effect(world, ctx, sink, effect, effect);
        // The step goes on after its write returned: every later use of the fence is a new chance
        // for a lease lost in between to be noticed, or missed.
        ctx.env().sleep(50 * kMillisecond);
        write_effect(world, ctx, sink, "receipt", effect + " receipt");
        world.mark(ctx, "second-effect-written");
        if (!system->confirm(ctx)) return;  // a refused confirm ends the step's own work
        system->call(ctx, 300 * kMillisecond);
        world.mark(ctx, "unchecked-after-write");
        write_effect(world, ctx, other_sink, "notice", effect + " notice");
        world.mark(ctx, "other-sink-written");
      });
}

namespace {

void collect_paths(const runtime::WorkflowRegistry& workflows, const runtime::Workflow& workflow,
                   const std::string& level, std::vector<std::string>& out) {
  for (const runtime::WorkflowItem& item : workflow.items) {
    if (const auto* step = std::get_if<runtime::StepItem>(&item)) {
      out.push_back(runtime::join_path(level, step->name));
      continue;
    }
    const auto& group = std::get<runtime::GroupItem>(item);
    const std::string group_path = runtime::join_path(level, group.name);
    for (const runtime::ChildItem& child : group.children) {
      if (child.placement == runtime::ChildPlacement::kAnyInstance) continue;
      collect_paths(workflows, workflows.get(child.workflow),
                    runtime::join_path(group_path, child.name), out);
    }
  }
}

}  // namespace

std::vector<std::string> step_paths(const runtime::WorkflowRegistry& workflows,
                                    const std::string& workflow) {
  std::vector<std::string> out;
  collect_paths(workflows, workflows.get(workflow), "", out);
  return out;
}

runtime::StepBody withdrawal_body(sim::World& world, std::shared_ptr<TreeWatch> watch,
                                  std::string named_path, std::string sink, std::string effect) {
  return [&world, watch = std::move(watch), named_path = std::move(named_path),
          sink = std::move(sink), effect = std::move(effect)](ExecutionContext& ctx) {
    world.mark(ctx, "withdrawal-" + watch->moment(ctx.tree_key(), ctx.path()));
    record_withdrawal_frame(world, ctx, named_path);
    if (effect.empty()) {
      // Only looks: a fenced frame's fence reads, an unfenced one refuses.
      try {
        (void)ctx.fence().token();
      } catch (const runtime::ExecutionContextUnavailableError&) {
        world.mark(ctx, "unfenced-withdrawal-refused");
      }
      return;
    }
    bool fenced = true;
    try {
      (void)ctx.fence().token();
    } catch (const runtime::ExecutionContextUnavailableError&) {
      fenced = false;
    }
    if (!fenced) {
      world.mark(ctx, "unfenced-withdrawal-refused");
      return;
    }
    // Nobody runs a withdrawal again, so it sends its write again itself while the reply is lost
    // (the same effect: its idempotency key deduplicates a write that did land). A stale or
    // ended step's fence refuses; nothing may escape a withdrawal.
    bool written = false;
    for (int attempt = 0; attempt < 5 && !written; ++attempt) {
      bool lost = false;
      try {
        write_withdrawal_effect(world, ctx, sink, effect, "withdrawal");
        written = true;
      } catch (const runtime::StoreUnavailableError&) {
        lost = true;
      } catch (const std::exception&) {
      }
      if (!lost) break;
      ctx.env().sleep(500 * kMillisecond);  // never inside the catch: fibers share its state
    }
    if (written) world.mark(ctx, "fenced-withdrawal-written");
    // Half the withdrawals that write linger after it (an application that goes on with work of
    // its own, e.g. waits for its own system to settle), looking at their step's signal every
    // half second; once it is aborted they give up with an error of their own, not the signal's
    // reason. What the runtime decides about that failure (the step's lease lost meanwhile) is
    // the withdrawal's classification. Drawn per withdrawal from a stream named by its effect
    // (unique in a run), so every other draw of the seed stays.
    sim::Rng linger = world.stream("withdrawal-linger/" + effect);
    if (!linger.chance(0.5)) return;
    const runtime::Nanoseconds lingering_since = ctx.env().monotonic_ns();
    for (std::int64_t looks = linger.between(1, 40); looks > 0; --looks) {
      ctx.env().sleep(500 * kMillisecond);
      if (!ctx.signal().aborted()) continue;
      world.mark(ctx, "withdrawal-gave-up");
      // Seconds into its own work, not at once: the lease it began under was lost while it went
      // on (mixes claim this, so that a linger cut short is seen: red team 35b-05).
      if (ctx.env().monotonic_ns() - lingering_since >= 5 * kSecond) {
        world.mark(ctx, "withdrawal-gave-up-after-lingering");
      }
      throw std::runtime_error("withdrawal: gave up, its step's signal was aborted");
    }
  };
}

void add_timed_withdrawals(sim::World& world, const std::shared_ptr<TreeWatch>& watch,
                           sim::Rng& rng, const std::vector<std::string>& instances,
                           const std::vector<runtime::LeaseKey>& trees,
                           const std::vector<std::string>& paths) {
  const std::int64_t count = rng.between(2, 10);
  for (std::int64_t i = 0; i < count; ++i) {
    // Past the safety phase too: a tree that ended meets a withdrawal in the quiet phase.
    const std::int64_t at_ns = rng.between(0, world.options().safety_phase_ns + 60 * kSecond);
    const std::string& instance = instances[rng.below(instances.size())];
    const runtime::LeaseKey& tree = trees[rng.below(trees.size())];
    std::string path = paths[rng.below(paths.size())];
    if (rng.chance(0.05)) path = runtime::join_path(path, "no-such-step");
    const std::string sink = rng.chance(0.5) ? "ledger" : "payments";
    world.withdraw_at(at_ns, instance, tree, path,
                      withdrawal_body(world, watch, path, sink, fmt::format("withdrawal-{}", i)));
  }
}

namespace {

// At `moment` of a step: maybe asks for a withdrawal `delay` later.
void maybe_withdraw(WithdrawalProbes& probes, ExecutionContext& ctx, bool at_end) {
  sim::Rng& rng = probes.rng;
  const bool go = rng.chance(0.25);
  const std::size_t instance = rng.below(probes.instances.size());
  const bool own_path = rng.chance(0.6);
  const std::size_t other = rng.below(probes.paths.size());
  // At the end: within a checkpoint's round trip, or seconds later (between steps, in a remote
  // wait); at the start: inside the step.
  const std::int64_t delay_ns = at_end && rng.chance(0.5) ? rng.between(0, 300) * kMillisecond
                                                          : rng.between(0, 15'000) * kMillisecond;
  const bool write = rng.chance(0.7);
  const std::string sink = rng.chance(0.5) ? "ledger" : "payments";
  if (!go || probes.left <= 0) return;
  --probes.left;
  sim::World& world = *probes.world;
  const std::string path = own_path ? ctx.path() : probes.paths[other];
  // Most write an effect of their own (judged at most once: nobody runs a withdrawal again); the
  // rest only look at the fence.
  const std::string effect = write ? fmt::format("probe-withdrawal-{}", probes.left) : "";
  world.withdraw_at(world.scheduler().now_ns() + delay_ns, probes.instances[instance],
                    ctx.tree_key(), path,
                    withdrawal_body(world, probes.watch, path, sink, effect));
}

}  // namespace

runtime::StepItem probed(std::shared_ptr<WithdrawalProbes> probes, runtime::StepItem step) {
  runtime::StepBody wrapped = [probes, body = step.body](ExecutionContext& ctx) {
    maybe_withdraw(*probes, ctx, false);
    // Every error a body lets escape is recorded with its code (outside the catch: never block
    // inside one), then goes on to the runtime as it was.
    std::exception_ptr failure;
    try {
      body(ctx);
    } catch (const std::exception&) {
      failure = std::current_exception();
    }
    if (failure) {
      record_errors(*probes->world, ctx, "step", failure);
      std::rethrow_exception(failure);
    }
    maybe_withdraw(*probes, ctx, true);
  };
  return with_body(step, std::move(wrapped));
}

runtime::Workflow probed(const std::shared_ptr<WithdrawalProbes>& probes,
                         runtime::Workflow workflow) {
  for (runtime::WorkflowItem& item : workflow.items) {
    if (auto* step = std::get_if<runtime::StepItem>(&item)) *step = probed(probes, *step);
  }
  return workflow;
}

}  // namespace fencesim::scenarios
