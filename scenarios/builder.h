#pragma once
// The small language hand-written scenarios are told in:
//
//   ScenarioBuilder("gc-stall-stale-write")
//       .describe("a GC stall past the lease with a write in flight; the stale write is refused")
//       .instance("instance-1").instance("instance-2", 5 * kSecond)
//       .sink("payments")
//       .workflow([](sim::World& w, sim::Rng& rng) { return Workflow{...}; })
//       .tree("tenant-1", "order-1", "order")
//       .fault(stall("instance-1").after(EventKind::kWriteSent).lasting_between(35s, 60s))
//       .marks({"stale-write-refused"})
//       .add_to(registry);
#include <functional>
#include <string>
#include <vector>

#include "scenarios/fault_spec.h"
#include "scenarios/scenario.h"

namespace fencesim::scenarios {

class ScenarioBuilder {
 public:
  using WorkflowFactory = std::function<runtime::Workflow(sim::World&, sim::Rng& workload)>;
  using PlanFactory = std::function<sim::FaultPlan(sim::World&, sim::Rng& faults)>;

  explicit ScenarioBuilder(std::string name);

  ScenarioBuilder& describe(std::string description);
  ScenarioBuilder& instance(std::string name, std::int64_t start_ns = 0);
  ScenarioBuilder& instances(int count);  // instance-1 .. instance-N, all from the start
  ScenarioBuilder& sink(std::string name);
  // The checkpoints at a node of their own, "checkpoint-store" (sim::World::add_checkpoint_store):
  // a fault on the lease store then leaves checkpoint reads and the cancel's recording alone.
  ScenarioBuilder& checkpoint_store();
  ScenarioBuilder& lease(std::int64_t ttl_ns, std::int64_t renew_interval_ns);
  ScenarioBuilder& safety_phase(std::int64_t duration_ns);
  ScenarioBuilder& options(std::function<void(sim::WorldOptions&)> adjust);
  ScenarioBuilder& workflow(WorkflowFactory factory);
  ScenarioBuilder& tree(std::string tenant, std::string execution, std::string workflow,
                        std::int64_t at_ns = 0);
  ScenarioBuilder& fault(FaultSpec spec);
  // A plan drawn per seed (swarm), after the hand-written faults.
  ScenarioBuilder& faults(PlanFactory factory);
  // Anything else the story needs (withdrawals, unchecked systems), after the topology.
  ScenarioBuilder& setup(std::function<void(sim::World&)> step);
  // "name" (reached at all) or "name >= 2%" (scenarios/mark_floor.h).
  ScenarioBuilder& marks(std::vector<MarkFloor> marks);

  Scenario build() const;
  void add_to(ScenarioRegistry& registry) const { registry.add(build()); }

 private:
  struct Tree {
    std::string tenant;
    std::string execution;
    std::string workflow;
    std::int64_t at_ns;
  };
  Scenario scenario_;
  bool checkpoint_store_ = false;
  std::vector<std::pair<std::string, std::int64_t>> instances_;
  std::vector<std::string> sinks_;
  std::vector<WorkflowFactory> workflows_;
  std::vector<Tree> trees_;
  std::vector<FaultSpec> faults_;
  std::vector<PlanFactory> plans_;
  std::vector<std::function<void(sim::World&)>> setups_;
  std::vector<std::function<void(sim::WorldOptions&)>> adjustments_;
};

}  // namespace fencesim::scenarios
