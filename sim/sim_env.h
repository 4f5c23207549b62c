#pragma once
// The runtime's environment on a simulated node: the node's own clocks, fibers of the node on the
// world's seeded scheduler, and the node's named random stream.
#include "runtime/env.h"
#include "sim/node_clock.h"
#include "sim/random.h"
#include "sim/scheduler.h"

namespace fencesim::sim {

class SimEnv final : public runtime::Env {
 public:
  SimEnv(Scheduler& scheduler, NodeId node, NodeClock& clock, Rng rng)
      : scheduler_(scheduler), node_(node), clock_(clock), rng_(rng) {}

  runtime::Nanoseconds monotonic_ns() override { return clock_.monotonic_at(scheduler_.now_ns()); }
  runtime::Nanoseconds wall_ns() override { return clock_.wall_at(scheduler_.now_ns()); }
  void sleep(runtime::Nanoseconds duration) override;
  void yield() override { scheduler_.yield(); }
  void spawn(std::string name, std::function<void()> body) override {
    scheduler_.spawn(node_, std::move(name), std::move(body));
  }
  std::unique_ptr<runtime::Notification> make_notification() override;
  std::uint64_t random_u64() override { return rng_.next(); }

  NodeId node() const { return node_; }
  // Draws from `rng` from now on (World::reseed).
  void reseed(Rng rng) { rng_ = rng; }
  NodeClock& clock() { return clock_; }

 private:
  Scheduler& scheduler_;
  NodeId node_;
  NodeClock& clock_;
  Rng rng_;
};

}  // namespace fencesim::sim
