#include "scenarios/fault_spec.h"

#include <algorithm>

#include "runtime/check.h"

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

FaultSpec& FaultSpec::aimed_at(sim::Aim deadline, std::int64_t low_ns, std::int64_t high_ns) {
  check_trigger();
  fault_.trigger->aim = deadline;
  fault_.trigger->delay_ns = low_ns;
  delay_high_ns_ = std::max(low_ns, high_ns);
  return *this;
}

FaultSpec& FaultSpec::in_flight(int low_permille, int high_permille) {
  check_trigger();
  check(low_permille >= 1, "in_flight: the low per mille is at least 1");
  check(high_permille <= 999, "in_flight: the high per mille is at most 999");
  check(low_permille <= high_permille, "in_flight: low <= high");
  fault_.trigger->aim = sim::Aim::kInFlight;
  fault_.trigger->delay_ns = 0;
  fault_.trigger->within_permille = low_permille;
  within_high_ = high_permille;
  return *this;
}

FaultSpec& FaultSpec::until(sim::Aim deadline, std::int64_t low_ns, std::int64_t high_ns) {
  check_trigger();
  check(deadline != sim::Aim::kEvent, "until: a deadline, not the event");
  check(deadline != sim::Aim::kInFlight, "until: a deadline, not a message in flight");
  fault_.trigger->until = deadline;
  fault_.trigger->until_delay_ns = low_ns;
  until_delay_high_ns_ = std::max(low_ns, high_ns);
  return *this;
}

void FaultSpec::check_trigger() const {
  check(fault_.trigger.has_value(), "aim a fault that has a trigger: call after() first");
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
  if (fault.trigger && fault.trigger->aimed()) {
    // Three more draws, for aimed faults only: the faults of scenarios that aim none draw as
    // they always did.
    sim::Trigger& t = *fault.trigger;
    t.delay_ns = rng.between(t.delay_ns, std::max(t.delay_ns, delay_high_ns_));
    t.within_permille = static_cast<int>(
        rng.between(t.within_permille, std::max(t.within_permille, within_high_)));
    t.until_delay_ns = rng.between(t.until_delay_ns, std::max(t.until_delay_ns, until_delay_high_ns_));
  }
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
