#include "properties/fault_plan_gen.h"

namespace fencesim::properties {

namespace {

constexpr std::int64_t kMs = 1'000'000;

rc::Gen<std::int64_t> millis(std::int64_t low_ms, std::int64_t high_ms) {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(low_ms, high_ms + 1),
                      [](std::int64_t ms) { return ms * kMs; });
}

}  // namespace

rc::Gen<sim::Fault> gen_fault(const PlanTopology& topology) {
  const std::int64_t safety_ms = topology.safety_phase_ns / kMs;
  const std::int64_t drift = topology.drift_bound_ppm * 8 / 10;
  std::vector<std::string> everyone = topology.instances;
  everyone.insert(everyone.end(), topology.stores.begin(), topology.stores.end());
  auto instance = rc::gen::elementOf(topology.instances);
  auto store = rc::gen::elementOf(topology.stores);
  auto any_node = rc::gen::elementOf(everyone);
  auto at = millis(0, safety_ms - 10'000);
  // Each kind draws what it uses; the rest stays zero, so equal plans compare equal.
  auto pause = [](sim::FaultKind kind, std::int64_t max_ms, auto node_gen, auto at_gen) {
    return rc::gen::apply(
        [kind](std::string node, std::int64_t when, std::int64_t duration) {
          return sim::Fault{kind, std::move(node), {}, when, std::nullopt, duration, 0, 0};
        },
        node_gen, at_gen, millis(0, max_ms));
  };
  return rc::gen::oneOf(
      pause(sim::FaultKind::kStall, 60'000, instance, at),
      pause(sim::FaultKind::kStop, 90'000, any_node, at),
      pause(sim::FaultKind::kCrash, 30'000, instance, at),
      rc::gen::apply(
          [](std::string node, std::int64_t when, std::int64_t duration, std::int64_t step_ms) {
            return sim::Fault{sim::FaultKind::kMigrate,
                              std::move(node),
                              {},
                              when,
                              std::nullopt,
                              duration,
                              step_ms * kMs,
                              0};
          },
          instance, at, millis(0, 45'000), rc::gen::inRange<std::int64_t>(-5'000, 5'001)),
      rc::gen::apply(
          [](std::string node, std::int64_t when, std::int64_t ppm) {
            return sim::Fault{
                sim::FaultKind::kClockDrift, std::move(node), {}, when, std::nullopt, 0, ppm, 0};
          },
          instance, at, rc::gen::inRange<std::int64_t>(-drift, drift + 1)),
      rc::gen::apply(
          [](std::string node, std::int64_t when, std::int64_t duration, std::int64_t extra) {
            return sim::Fault{sim::FaultKind::kNetworkDelay,
                              std::move(node),
                              {},
                              when,
                              std::nullopt,
                              duration,
                              extra,
                              0};
          },
          any_node, at, millis(0, 30'000), millis(0, 3'000)),
      rc::gen::apply(
          [](std::string node, std::int64_t when, std::int64_t duration, int percent) {
            return sim::Fault{sim::FaultKind::kNetworkDrop,
                              std::move(node),
                              {},
                              when,
                              std::nullopt,
                              duration,
                              0,
                              percent / 100.0};
          },
          any_node, at, millis(0, 30'000), rc::gen::inRange(0, 101)),
      rc::gen::apply(
          [](std::string node, std::int64_t when, std::int64_t duration, int percent) {
            return sim::Fault{sim::FaultKind::kNetworkDuplicate,
                              std::move(node),
                              {},
                              when,
                              std::nullopt,
                              duration,
                              0,
                              percent / 100.0};
          },
          store, at, millis(0, 30'000), rc::gen::inRange(0, 101)),
      rc::gen::apply(
          [](std::string node, std::string peer, std::int64_t when, std::int64_t duration) {
            return sim::Fault{sim::FaultKind::kPartition,
                              std::move(node),
                              std::move(peer),
                              when,
                              std::nullopt,
                              duration,
                              0,
                              0};
          },
          instance, store, at, millis(0, 60'000)),
      pause(sim::FaultKind::kStoreDown, 20'000, store, at));
}

rc::Gen<sim::FaultPlan> gen_fault_plan(const PlanTopology& topology, std::size_t max_faults) {
  return rc::gen::map(
      rc::gen::resize(static_cast<int>(max_faults),
                      rc::gen::container<std::vector<sim::Fault>>(gen_fault(topology))),
      [](std::vector<sim::Fault> faults) { return sim::FaultPlan{std::move(faults)}; });
}

}  // namespace fencesim::properties
