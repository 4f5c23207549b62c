#include "scenarios/fault_spec.h"

#include <algorithm>

namespace fencesim::scenarios {

FaultSpec::FaultSpec(sim::FaultKind kind, std::string node) {
  fault_.kind = kind;
  fault_.node = std::move(node);
}

FaultSpec& FaultSpec::at(std::int64_t time_ns) {
  return at_between(time_ns, time_ns);
}

FaultSpec& FaultSpec::at_between(std::int64_t low_ns, std::int64_t high_ns) {
  fault_.at_ns = low_ns;
  at_high_ns_ = std::max(low_ns, high_ns);
  fault_.trigger.reset();
  return *this;
}

FaultSpec& FaultSpec::after(runtime::EventKind event, int occurrence, std::int64_t delay_ns) {
  fault_.trigger = sim::Trigger{event, occurrence, delay_ns, {}};
  return *this;
}

FaultSpec& FaultSpec::after_at(std::string node, runtime::EventKind event, int occurrence,
                               std::int64_t delay_ns) {
  fault_.trigger = sim::Trigger{event, occurrence, delay_ns, std::move(node)};
  return *this;
}

FaultSpec& FaultSpec::lasting(std::int64_t duration_ns) {
  return lasting_between(duration_ns, duration_ns);
}

FaultSpec& FaultSpec::lasting_between(std::int64_t low_ns, std::int64_t high_ns) {
  fault_.duration_ns = low_ns;
  duration_high_ns_ = std::max(low_ns, high_ns);
  return *this;
}

FaultSpec& FaultSpec::amount(std::int64_t value) {
  return amount_between(value, value);
}

FaultSpec& FaultSpec::amount_between(std::int64_t low, std::int64_t high) {
  fault_.amount = low;
  amount_high_ = std::max(low, high);
  return *this;
}

FaultSpec& FaultSpec::probability(double p) {
  fault_.probability = p;
  return *this;
}

FaultSpec& FaultSpec::with_peer(std::string peer) {
  fault_.peer = std::move(peer);
  return *this;
}

sim::Fault FaultSpec::draw(sim::Rng& rng) const {
  sim::Fault fault = fault_;
  // Always three draws, whatever is ranged: adding a range to one fault keeps the others' draws.
  const std::int64_t at = rng.between(fault_.at_ns, std::max(fault_.at_ns, at_high_ns_));
  const std::int64_t duration =
      rng.between(fault_.duration_ns, std::max(fault_.duration_ns, duration_high_ns_));
  const std::int64_t amount = rng.between(fault_.amount, std::max(fault_.amount, amount_high_));
  if (!fault.trigger) fault.at_ns = at;
  fault.duration_ns = duration;
  fault.amount = amount;
  return fault;
}

FaultSpec stall(std::string node) {
  return FaultSpec(sim::FaultKind::kStall, std::move(node));
}
FaultSpec stop(std::string node) {
  return FaultSpec(sim::FaultKind::kStop, std::move(node));
}
FaultSpec migrate(std::string node) {
  return FaultSpec(sim::FaultKind::kMigrate, std::move(node));
}
FaultSpec crash(std::string node) {
  return FaultSpec(sim::FaultKind::kCrash, std::move(node));
}
FaultSpec clock_drift(std::string node) {
  return FaultSpec(sim::FaultKind::kClockDrift, std::move(node));
}
FaultSpec clock_step(std::string node) {
  return FaultSpec(sim::FaultKind::kClockStep, std::move(node));
}
FaultSpec network_delay(std::string node) {
  return FaultSpec(sim::FaultKind::kNetworkDelay, std::move(node));
}
FaultSpec network_drop(std::string node) {
  return FaultSpec(sim::FaultKind::kNetworkDrop, std::move(node));
}
FaultSpec network_duplicate(std::string node) {
  return FaultSpec(sim::FaultKind::kNetworkDuplicate, std::move(node));
}
FaultSpec partition(std::string node, std::string peer) {
  return FaultSpec(sim::FaultKind::kPartition, std::move(node)).with_peer(std::move(peer));
}
FaultSpec store_slow(std::string node) {
  return FaultSpec(sim::FaultKind::kStoreSlow, std::move(node));
}
FaultSpec store_down(std::string node) {
  return FaultSpec(sim::FaultKind::kStoreDown, std::move(node));
}

}  // namespace fencesim::scenarios
