// The real-world demo of ADR-0023: kleppmann-fencing in real mode. Two instance processes, real
// clocks, a 30 s lease scaled to 300 ms, the stores in a SQLite file. Instance 1 is stopped with a
// real SIGSTOP right after its write left the step (the write is still on its way: it is sent
// when the process runs again); instance 2 takes the tree over with the next token and writes;
// instance 1 gets SIGCONT, and its write with the old token reaches the sink, which refuses it.
// Exits 0 only if the stale write was refused, the tree completed with exactly one effect, and
// every invariant held.
#include <fmt/format.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

#include "real/coordinator.h"
#include "stores/store_setup_error.h"

namespace fs = std::filesystem;
using fencesim::sim::WorldEventKind;

namespace {

// The fencesim program next to this one's build folder (build/<preset>/cli/fencesim).
std::string fencesim_binary() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "fencesim";
  const fs::path self(std::string(path, static_cast<std::size_t>(n)));
  return (self.parent_path().parent_path() / "cli" / "fencesim").string();
}

// One line of the story for the events a person wants to see; "" for the rest.
std::string story_line(const fencesim::sim::HistoryEvent& e,
                        const std::vector<std::string>& names) {
  using K = fencesim::runtime::EventKind;
  const std::string& node = names.at(e.node);
  switch (e.world) {
    case WorldEventKind::kNodePaused:
      return fmt::format("{} is stopped: a real SIGSTOP of its process", node);
    case WorldEventKind::kNodeResumed:
      return fmt::format("{} gets SIGCONT and runs again", node);
    case WorldEventKind::kRuntime:
      break;
    default:
      return {};
  }
  const auto& r = e.runtime;
  switch (r.kind) {
    case K::kLeaseTaken:
      return fmt::format("{} takes the lease of {} with token {}", r.holder, r.key.lease_execution_id,
                         r.token);
    case K::kWriteSent:
      return fmt::format("{} sends its write with token {}", r.holder, r.token);
    case K::kSinkApplied:
      return fmt::format("sink {} applies the write with token {}", r.holder, r.token);
    case K::kSinkRefused:
      return fmt::format("sink {} REFUSES the write with token {}: it has seen token {}", r.holder,
                         r.token, r.value);
    case K::kLeaseLost:
      return fmt::format("{} knows it lost token {} ({})", r.holder, r.token, r.detail);
    case K::kStepEnded:
      return r.step.find("charge") != std::string::npos
                 ? fmt::format("{} ends step '{}' with {}", r.holder, r.step, r.detail)
                 : std::string();
    case K::kTreeCompleted:
      return fmt::format("{} completes the tree", r.holder);
    default:
      return {};
  }
}

}  // namespace

int main() {
  fencesim::real::RealRequest request;
  request.scenario = "kleppmann-fencing";
  request.seed = 1;
  request.scale = 0.01;
  request.binary = fencesim_binary();
  fmt::print(
      "fence demo: kleppmann-fencing in real mode; lease 30 s scaled to 300 ms; two instance "
      "processes on one SQLite file\n");
  int applied = 0;
  bool refused = false;
  try {
    const fencesim::real::RealRun run = fencesim::real::run_real(
        fencesim::scenarios::builtin_scenarios(), request,
        [&](const fencesim::sim::World& world, const fencesim::properties::RunReport&) {
          for (const auto& e : world.history().events()) {
            if (e.world == WorldEventKind::kRuntime &&
                e.runtime.kind == fencesim::runtime::EventKind::kSinkApplied) {
              ++applied;
            }
            if (e.world == WorldEventKind::kRuntime &&
                e.runtime.kind == fencesim::runtime::EventKind::kSinkRefused) {
              refused = true;
            }
            const std::string line = story_line(e, world.node_names());
            if (!line.empty()) {
              fmt::print("{:>8.0f} ms  {}\n", static_cast<double>(e.time_ns) * request.scale / 1e6,
                         line);
            }
          }
        });
    const bool ok = run.report.status == fencesim::properties::RunStatus::kPass && refused &&
                    applied == 1;
    fmt::print("\n{}: stale write {}, effects at the sink: {}, invariants: {}, wall {:.1f} s\n",
               ok ? "OK" : "FAILED", refused ? "refused" : "NOT refused", applied,
               fencesim::properties::to_string(run.report.status), run.wall_seconds);
    return ok ? 0 : 1;
  } catch (const std::exception& error) {
    fmt::print(stderr, "fence demo: {}\n", error.what());
    return 2;
  }
}
