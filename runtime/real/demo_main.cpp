// The real-world demo of ADR-0023: two instances, real clocks, a 300 ms lease. Instance A is
// frozen (as by SIGSTOP) while its write is on its way; instance B takes the tree over with the
// next token and writes; A wakes, its write with the old token reaches the sink and is refused.
// Exits 0 only if the stale write was refused and the tree completed with exactly one effect.
#include <fmt/format.h>

#include <boost/fiber/all.hpp>
#include <chrono>
#include <map>

#include "runtime/checkpoint_store.h"
#include "runtime/execution_context.h"
#include "runtime/instance.h"
#include "runtime/memory_lease_repository.h"
#include "runtime/placement_queue.h"
#include "runtime/real/delayed_sink.h"
#include "runtime/real/real_env.h"
#include "runtime/sink.h"

namespace rt = fencesim::runtime;
using rt::kMillisecond;

namespace {

// Prints the moments of the story and remembers what the demo checks.
class Story final : public rt::Observer {
 public:
  explicit Story(rt::real::RealEnv& clock) : clock_(clock), start_ns_(clock.monotonic_ns()) {}

  void on_event(const rt::RuntimeEvent& e) override {
    const std::string line = describe(e);
    if (!line.empty()) {
      fmt::print("{:>6.0f} ms  {}\n", static_cast<double>(clock_.monotonic_ns() - start_ns_) / 1e6,
                 line);
    }
    if (e.kind == rt::EventKind::kSinkRefused) stale_refused = true;
    if (e.kind == rt::EventKind::kSinkApplied) ++effects;
    if (e.kind == rt::EventKind::kTreeCompleted) tree_completed = true;
    if (e.kind == rt::EventKind::kWriteSent && e.holder == "instance-A") write_sent_by_a = true;
    if (e.kind == rt::EventKind::kStepEnded && e.holder == "instance-A" && e.step == "charge") {
      a_step_outcome = e.detail;
    }
  }

  bool stale_refused = false;
  bool tree_completed = false;
  bool write_sent_by_a = false;
  int effects = 0;
  std::string a_step_outcome;

 private:
  static std::string describe(const rt::RuntimeEvent& e) {
    using K = rt::EventKind;
    switch (e.kind) {
      case K::kLeaseTaken:
        return fmt::format("{} takes the lease of {} with token {}", e.holder, e.scope_key,
                           e.token);
      case K::kStepStarted:
        return fmt::format("{} starts step '{}' (token {})", e.holder, e.step, e.token);
      case K::kWriteSent:
        return fmt::format("{} sends its write with token {}", e.holder, e.token);
      case K::kSinkApplied:
        return fmt::format("sink applies the write with token {}", e.token);
      case K::kSinkRefused:
        return fmt::format("sink REFUSES the write with token {}: it has seen token {}", e.token,
                           e.value);
      case K::kLeaseLost:
        return fmt::format("{} knows it lost token {} ({})", e.holder, e.token, e.detail);
      case K::kStepEnded:
        return fmt::format("{} ends step '{}' with {}", e.holder, e.step, e.detail);
      case K::kTreeCompleted:
        return fmt::format("{} completes the tree", e.holder);
      default:
        return {};
    }
  }

  rt::real::RealEnv& clock_;
  rt::Nanoseconds start_ns_;
};

}  // namespace

int main() {
  rt::real::RealEnv env_a, env_b, env_store;
  Story story(env_store);
  rt::MemoryLeaseRepository leases(env_store, story);
  rt::MemoryCheckpointStore checkpoints(leases, story);
  rt::MemoryPlacementQueue queue;
  rt::MemorySink payments("payments", story);
  rt::real::DelayedSink link_a(env_a, payments, 20 * kMillisecond);
  rt::real::DelayedSink link_b(env_b, payments, 20 * kMillisecond);
  std::map<const rt::Env*, rt::Sink*> link_of{{&env_a, &link_a}, {&env_b, &link_b}};

  rt::WorkflowRegistry workflows;
  workflows.add(rt::Workflow{
      "order",
      {rt::StepItem{"reserve",
                    [](rt::ExecutionContext& ctx) { ctx.env().sleep(10 * kMillisecond); }},
       rt::StepItem{"charge", [&](rt::ExecutionContext& ctx) {
                      ctx.env().sleep(30 * kMillisecond);
                      ctx.fence().write(*link_of.at(&ctx.env()), "charge", "charge 42 EUR");
                    }}}});

  rt::InstanceOptions options;
  options.lease.ttl_ns = 300 * kMillisecond;
  options.lease.renew_interval_ns = 100 * kMillisecond;
  options.poll_interval_ns = 50 * kMillisecond;
  options.holder = "instance-A";
  rt::Instance a(env_a, leases, checkpoints, queue, workflows, story, options);
  options.holder = "instance-B";
  rt::Instance b(env_b, leases, checkpoints, queue, workflows, story, options);

  fmt::print(
      "fence demo: lease 300 ms; instance-A will be frozen for 900 ms while its write is "
      "on its way\n");
  queue.place(rt::LeaseKey{"tenant-1", "order-7"}, "order", std::nullopt);
  a.poll_once();  // A takes the tree first.
  a.start();
  bool frozen = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline &&
         !(story.stale_refused && story.tree_completed)) {
    if (!frozen && story.write_sent_by_a) {
      fmt::print("{:>9}  instance-A is frozen (SIGSTOP) for 900 ms\n", "");
      env_a.freeze_for(900 * kMillisecond);
      frozen = true;
      b.start();
    }
    boost::this_fiber::sleep_for(std::chrono::milliseconds(2));
  }
  a.stop();
  b.stop();
  while (env_a.live_fibers() + env_b.live_fibers() > 0 &&
         std::chrono::steady_clock::now() < deadline + std::chrono::seconds(2)) {
    boost::this_fiber::sleep_for(std::chrono::milliseconds(5));
  }

  const bool ok = story.stale_refused && story.tree_completed && story.effects == 1 &&
                  story.a_step_outcome == "execution.lease-lost.fenced";
  fmt::print(
      "\n{}: stale write {}, tree {}, effects at the sink: {}, instance-A's step ended with "
      "'{}'\n",
      ok ? "OK" : "FAILED", story.stale_refused ? "refused" : "NOT refused",
      story.tree_completed ? "completed" : "NOT completed", story.effects, story.a_step_outcome);
  return ok ? 0 : 1;
}
