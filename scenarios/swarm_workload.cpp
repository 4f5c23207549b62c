#include "scenarios/swarm_workload.h"

#include <set>
#include <stdexcept>

#include "runtime/errors.h"
#include "scenarios/error_shapes.h"
#include "scenarios/unchecked_system.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

using runtime::ExecutionContext;
using runtime::kMillisecond;
using runtime::kSecond;

void expect_unavailable(sim::World& world, ExecutionContext& ctx, const std::function<void()>& use,
                        const std::string& refused_mark) {
  bool refused = false;
  try {
    use();
  } catch (const runtime::ExecutionContextUnavailableError&) {
    refused = true;
  }
  world.mark(ctx, refused ? refused_mark : "fence-misuse-not-refused");
}

runtime::StepItem keep_fence_step(std::shared_ptr<KeptFences> kept) {
  return runtime::StepItem{"keep-fence", [kept](ExecutionContext& ctx) {
                             const runtime::ExecutionFence fence = ctx.fence();
                             kept->insert_or_assign({fence.scope_key(), fence.token()}, fence);
                           }};
}

runtime::StepItem reuse_fence_step(sim::World& world, std::shared_ptr<KeptFences> kept) {
  return runtime::StepItem{"reuse-fence", [&world, kept](ExecutionContext& ctx) {
                             // Only this pass's own kept fence: another pass's keep step may
                             // still be running, and its fence is then rightly usable.
                             auto it = kept->find({ctx.fence().scope_key(), ctx.fence().token()});
                             if (it == kept->end()) return;  // kept before a yield or a takeover
                             const runtime::ExecutionFence fence = it->second;
                             expect_unavailable(
                                 world, ctx, [&] { (void)fence.token(); }, "kept-fence-refused");
                           }};
}

runtime::StepItem ancestor_fence_step(sim::World& world) {
  return runtime::StepItem{"ancestor-fence", [&world](ExecutionContext& ctx) {
                             expect_unavailable(
                                 world, ctx, [&] { (void)ctx.parent().fence().token(); },
                                 "ancestor-fence-refused");
                           }};
}

runtime::StepItem notify_step(sim::World& world) {
  auto mailer = std::make_shared<UncheckedSystem>(world);
  // The mailer fails now and then, once per tree at most: the step fails as an application's step
  // does (a StepError whose cause is the mailer's own error), the pass is abandoned and the tree
  // taken again. What the runtime reports of such a failure, and the codes the body shows, are
  // judged by error-code-families.
  auto failed = std::make_shared<std::set<runtime::LeaseKey>>();
  auto rng = std::make_shared<sim::Rng>(world.stream("application-failures"));
  return runtime::StepItem{"notify", [&world, mailer, failed, rng](ExecutionContext& ctx) {
                             for (int call = 0; call < 2; ++call) {
                               if (!mailer->confirm(ctx)) return;
                               ctx.env().sleep(100 * kMillisecond);  // builds the request
                               if (rng->chance(0.15) && failed->insert(ctx.tree_key()).second) {
                                 world.mark(ctx, "application-step-failed");
                                 throw runtime::StepError(
                                     "notify: the mailer failed",
                                     std::make_exception_ptr(std::runtime_error("mailer: 503")));
                               }
                               mailer->call(ctx, kSecond);
                             }
                           }};
}

runtime::StepItem wrapping_write_step(sim::World& world, std::string name,
                                      runtime::Nanoseconds duration, std::string sink) {
  // The shape the refusal is wrapped in starts at one drawn per seed and changes with every run of
  // the step, so that a sweep walks every path of the runtime's search for a fenced error.
  auto shapes = std::make_shared<ShapeCycle>(world.stream("error-shape").below(kShapeCycle));
  return runtime::StepItem{
      std::move(name),
      [&world, duration, sink = std::move(sink), shapes](ExecutionContext& ctx) {
        ctx.env().sleep(duration);
        std::exception_ptr refusal;
        try {
          write_effect(world, ctx, sink, "charge", "charge");
        } catch (const runtime::ExecutionFencedError&) {
          refusal = std::current_exception();
        }
        if (!refusal) return;
        world.mark(ctx, "fenced-error-wrapped");
        std::rethrow_exception(wrap_refusal(shapes->next(), refusal));
      }};
}

}  // namespace fencesim::scenarios
