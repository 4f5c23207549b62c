#include "scenarios/builder.h"

#include <fmt/format.h>

namespace fencesim::scenarios {

ScenarioBuilder::ScenarioBuilder(std::string name) {
  scenario_.name = std::move(name);
}

ScenarioBuilder& ScenarioBuilder::describe(std::string description) {
  scenario_.description = std::move(description);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::instance(std::string name, std::int64_t start_ns) {
  instances_.emplace_back(std::move(name), start_ns);
  return *this;
}

ScenarioBuilder& ScenarioBuilder::instances(int count) {
  for (int i = 1; i <= count; ++i) instance(fmt::format("instance-{}", i));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::sink(std::string name) {
  sinks_.push_back(std::move(name));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::checkpoint_store() {
  checkpoint_store_ = true;
  return *this;
}

ScenarioBuilder& ScenarioBuilder::lease(std::int64_t ttl_ns, std::int64_t renew_interval_ns) {
  return options([ttl_ns, renew_interval_ns](sim::WorldOptions& o) {
    o.lease.ttl_ns = ttl_ns;
    o.lease.renew_interval_ns = renew_interval_ns;
  });
}

ScenarioBuilder& ScenarioBuilder::safety_phase(std::int64_t duration_ns) {
  return options([duration_ns](sim::WorldOptions& o) { o.safety_phase_ns = duration_ns; });
}

ScenarioBuilder& ScenarioBuilder::options(std::function<void(sim::WorldOptions&)> adjust) {
  adjustments_.push_back(std::move(adjust));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::workflow(WorkflowFactory factory) {
  workflows_.push_back(std::move(factory));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::tree(std::string tenant, std::string execution,
                                       std::string workflow, std::int64_t at_ns) {
  trees_.push_back(Tree{std::move(tenant), std::move(execution), std::move(workflow), at_ns});
  return *this;
}

ScenarioBuilder& ScenarioBuilder::fault(FaultSpec spec) {
  faults_.push_back(std::move(spec));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::faults(PlanFactory factory) {
  plans_.push_back(std::move(factory));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::setup(std::function<void(sim::World&)> step) {
  setups_.push_back(std::move(step));
  return *this;
}

ScenarioBuilder& ScenarioBuilder::marks(std::vector<MarkFloor> marks) {
  scenario_.marks = std::move(marks);
  return *this;
}

Scenario ScenarioBuilder::build() const {
  Scenario scenario = scenario_;
  scenario.configure = [adjustments = adjustments_](sim::WorldOptions& options) {
    for (const auto& adjust : adjustments) adjust(options);
  };
  scenario.build = [checkpoint_store = checkpoint_store_, instances = instances_, sinks = sinks_,
                    workflows = workflows_, trees = trees_, faults = faults_, plans = plans_,
                    setups = setups_](sim::World& world) {
    world.add_lease_store();
    if (checkpoint_store) world.add_checkpoint_store();
    for (const std::string& sink : sinks) world.add_sink(sink);
    for (const auto& [name, start_ns] : instances) world.add_instance(name, start_ns);
    sim::Rng workload = world.stream("workload");
    for (const auto& factory : workflows) world.workflows().add(factory(world, workload));
    for (const Tree& tree : trees) {
      world.submit(runtime::LeaseKey{tree.tenant, tree.execution}, tree.workflow, tree.at_ns);
    }
    sim::Rng fault_stream = world.stream("faults");
    sim::FaultPlan plan;
    for (const FaultSpec& spec : faults) plan.faults.push_back(spec.draw(fault_stream));
    for (const auto& factory : plans) {
      for (sim::Fault& fault : factory(world, fault_stream).faults) {
        plan.faults.push_back(std::move(fault));
      }
    }
    world.set_fault_plan(std::move(plan));
    for (const auto& step : setups) step(world);
  };
  return scenario;
}

}  // namespace fencesim::scenarios
