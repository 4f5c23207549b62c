// Bugs planted on purpose, to prove that a sanitizer sweep (the `asan-sweep` preset, docs/
// sanitizers.md) reports what a sanitizer finds inside a simulated fiber with the seed that found
// it. Registered only when FENCESIM_TEST_PLANTED_BUGS=1, so no ordinary list, run or sweep ever
// sees them. Each scenario runs the order story; in about one seed in three (drawn from the
// workload stream) its "charge" step does the bug it is named for:
//   planted-use-after-free   reads an element through a reference a vector's growth left dangling
//   planted-signed-overflow  adds to an int near its maximum
//   planted-abort-in-fiber   calls std::abort inside the step's fiber
//   planted-nondeterminism   no sanitizer bug: its steps last longer in every other world this
//                            process builds, so a seed run twice in one process (check-determinism,
//                            a sweep's rerun) gives two histories, as reading real time would
// and two liveness bugs, in every seed, that must never share a failure signature (triage tells
// a new liveness bug from a known one by what the run was stuck on):
//   planted-lost-wakeup      the charge step waits for a wake-up nobody sends: the tree stops
//                            with its lease held and the step running
//   planted-failing-step     the charge step fails every time it runs: each pass gives the tree
//                            up and the next takes it again, forever
// and a hang, which no virtual-time limit can stop (only a sweep's --run-timeout):
//   planted-spin             the charge step spins without ever giving its fiber up
// Without a sanitizer the first two are silent undefined behaviour: never run them outside a
// sanitizer build.
#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "scenarios/builder.h"
#include "scenarios/workload.h"

namespace fencesim::scenarios {

namespace {

using runtime::kMillisecond;
using runtime::kSecond;

// Kept out of the optimizer's sight, so that the bugs happen at run time.
volatile int g_sink = 0;

// Out of line, so that the caller cannot see the growth free the old buffer: inlined, GCC at -O2
// (the `asan-sweep` preset) folds the growth and the read together and the read of freed memory
// never happens.
[[gnu::noinline]] void grow(std::vector<int>& amounts) {
  for (int i = 0; i < 64; ++i) amounts.push_back(i);
}

void use_after_free(int value) {
  std::vector<int> amounts{value};
  const int& first = amounts.front();
  grow(amounts);  // `first` now points at freed memory
  g_sink = first;
}

void signed_overflow(int value) {
  volatile int total = INT_MAX - value;
  g_sink = total + 2 * value;
}

runtime::Workflow planted_workflow(sim::World& world, sim::Rng& workload, std::string_view bug) {
  const bool plant = workload.between(0, 2) == 0;
  const int value = static_cast<int>(workload.between(1, 1000));
  const auto work_ns = workload.between(500, 3000) * kMillisecond;
  runtime::StepBody charge = [&world, bug, plant, value, work_ns](runtime::ExecutionContext& ctx) {
    ctx.env().sleep(work_ns);
    if (plant) {
      if (bug == "use-after-free") use_after_free(value);
      if (bug == "signed-overflow") signed_overflow(value);
      if (bug == "abort-in-fiber") std::abort();
    }
    write_effect(world, ctx, "payments", "write", "charge 42 EUR");
  };
  return runtime::Workflow{"order",
                           {work_step("reserve", work_ns),
                            declared_step("charge", {{"payments", "write"}}, std::move(charge)),
                            work_step("ship", work_ns)}};
}

// Worlds of planted-nondeterminism built by this process: state that outlives a run, the bug.
int g_nondeterministic_worlds = 0;

runtime::Workflow nondeterministic_workflow(sim::Rng& workload) {
  const std::int64_t extra_ms = (g_nondeterministic_worlds++ % 2) * 7;
  const auto work_ns = (workload.between(500, 3000) + extra_ms) * kMillisecond;
  return runtime::Workflow{"order", {work_step("reserve", work_ns), work_step("ship", work_ns)}};
}

runtime::Workflow liveness_workflow(sim::Rng& workload, std::string_view bug) {
  const auto work_ns = workload.between(500, 3000) * kMillisecond;
  runtime::StepBody charge = [bug, work_ns](runtime::ExecutionContext& ctx) {
    ctx.env().sleep(work_ns);
    if (bug == "lost-wakeup") {
      // The notify that should end this wait was never written.
      const std::unique_ptr<runtime::Notification> paid = ctx.env().make_notification();
      paid->wait("a payment wake-up nobody sends");
    }
    if (bug == "failing-step") throw std::runtime_error("planted: the charge step always fails");
    if (bug == "spin") {
      for (;;) g_sink = g_sink + 1;
    }
  };
  return runtime::Workflow{"order",
                           {work_step("reserve", work_ns), runtime::StepItem{"charge", charge},
                            work_step("ship", work_ns)}};
}

void add_liveness(ScenarioRegistry& registry, std::string_view bug) {
  ScenarioBuilder(fmt::format("planted-{}", bug))
      .describe(fmt::format("test only: the order story whose charge step has a {} bug, every seed",
                            bug))
      .safety_phase(30 * kSecond)
      .instance("instance-1")
      .workflow([bug](sim::World&, sim::Rng& rng) { return liveness_workflow(rng, bug); })
      .tree("tenant-1", "order-1", "order")
      .add_to(registry);
}

void add_nondeterministic(ScenarioRegistry& registry) {
  ScenarioBuilder("planted-nondeterminism")
      .describe("test only: the order story, 7 ms longer per step in every other world built")
      .safety_phase(30 * kSecond)
      .instance("instance-1")
      .workflow([](sim::World&, sim::Rng& rng) { return nondeterministic_workflow(rng); })
      .tree("tenant-1", "order-1", "order")
      .add_to(registry);
}

void add_planted(ScenarioRegistry& registry, std::string_view bug) {
  ScenarioBuilder(fmt::format("planted-{}", bug))
      .describe(fmt::format("test only: the order story whose charge step does a {} in about one "
                            "seed in three",
                            bug))
      .safety_phase(30 * kSecond)
      .sink("payments")
      .instance("instance-1")
      .workflow(
          [bug](sim::World& world, sim::Rng& rng) { return planted_workflow(world, rng, bug); })
      .tree("tenant-1", "order-1", "order")
      .add_to(registry);
}

}  // namespace

static void register_planted_bugs(ScenarioRegistry& registry) {
  const char* enabled = std::getenv("FENCESIM_TEST_PLANTED_BUGS");
  if (enabled == nullptr || std::string_view(enabled) != "1") return;
  for (std::string_view bug : {"use-after-free", "signed-overflow", "abort-in-fiber"}) {
    add_planted(registry, bug);
  }
  add_nondeterministic(registry);
  for (std::string_view bug : {"lost-wakeup", "failing-step", "spin"}) add_liveness(registry, bug);
}

// The one line that makes this file's scenarios built in (scenarios/scenario.h).
const ScenarioRegistration kPlantedBugsRegistration(register_planted_bugs);

}  // namespace fencesim::scenarios
