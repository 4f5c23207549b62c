// The numbers the shrinker moves and the key it knows a tried plan by (properties/shrink_fields.h).
// The shrink tests (shrink_test.cpp) see a time, a duration and an amount shrink end to end; no
// failure of theirs needs a probability or a trigger's delay, so those are read and written here:
// a field that reads or writes the wrong number, on the wrong grid or with the wrong sign, or a key
// that leaves a number out, shrinks nothing in every sweep and no run shows it.
#include "properties/shrink_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace fencesim::properties::shrink {
namespace {

using runtime::kMillisecond;
using runtime::kSecond;

sim::Fault fault(sim::FaultKind kind) {
  sim::Fault f{kind, "instance-1", {}, 3 * kSecond, std::nullopt, 4 * kSecond, 0, 0};
  return f;
}

std::vector<std::string> names(const sim::Fault& f) {
  std::vector<std::string> out;
  for (const Field& field : fields_of(f)) out.push_back(field.name);
  return out;
}

const Field& field(const std::vector<Field>& fields, const std::string& name) {
  const auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const Field& candidate) { return candidate.name == name; });
  // Thrown, not dereferenced: the test fails with the name and the rest of the suite runs on.
  if (it == fields.end()) throw std::runtime_error("no field named " + name);
  return *it;
}

TEST(ShrinkFields, EachKindShrinksItsOwnNumbers) {
  using V = std::vector<std::string>;
  EXPECT_EQ(names(fault(sim::FaultKind::kStall)), (V{"time", "duration"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kMigrate)), (V{"time", "duration", "amount"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kClockDrift)), (V{"time", "drift"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kClockStep)), (V{"time", "amount"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kNetworkDrop)), (V{"time", "duration", "probability"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kNetworkDuplicate)),
            (V{"time", "duration", "probability"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kStoreSlow)), (V{"time", "duration", "amount"}));
  EXPECT_EQ(names(fault(sim::FaultKind::kStoreDown)), (V{"time", "duration"}));
}

TEST(ShrinkFields, AProbabilityShrinksInWholePercentsAndIsWrittenBack) {
  sim::Fault drop = fault(sim::FaultKind::kNetworkDrop);
  drop.probability = 0.25;
  const std::vector<Field> fields = fields_of(drop);
  const Field& p = field(fields, "probability");
  EXPECT_EQ(p.lower, 0);
  EXPECT_EQ(p.unit, 1);
  EXPECT_EQ(p.get(drop), 25);
  p.set(drop, 13);
  EXPECT_DOUBLE_EQ(drop.probability, 0.13);
  EXPECT_EQ(p.get(drop), 13) << "read back as written";
  EXPECT_EQ(p.show(13), "0.13");
  EXPECT_EQ(p.show(100), "1.00");
  drop.probability = 0.001;  // below a percent: still above the lower bound, so it can go to 0
  EXPECT_EQ(p.get(drop), 1);
  // The other numbers stay as they were.
  EXPECT_EQ(drop.duration_ns, 4 * kSecond);
  EXPECT_EQ(drop.at_ns, 3 * kSecond);
}

TEST(ShrinkFields, ATriggersDelayShrinksByItsMagnitudeKeepingItsSign) {
  sim::Fault stall = fault(sim::FaultKind::kStall);
  stall.trigger = sim::Trigger{runtime::EventKind::kLeaseTaken};
  stall.trigger->occurrence = 3;
  stall.trigger->delay_ns = -250 * kMillisecond;  // aimed before a deadline
  stall.trigger->aim = sim::Aim::kHolderExpiry;
  {
    const std::vector<Field> fields = fields_of(stall);
    EXPECT_EQ(names(stall),
              (std::vector<std::string>{"trigger occurrence", "trigger delay", "duration"}));
    const Field& occurrence = field(fields, "trigger occurrence");
    EXPECT_EQ(occurrence.lower, 1);
    EXPECT_EQ(occurrence.get(stall), 3);
    const Field& delay = field(fields, "trigger delay");
    EXPECT_EQ(delay.lower, 0);
    EXPECT_EQ(delay.unit, kMillisecond);
    EXPECT_EQ(delay.get(stall), 250 * kMillisecond);
    delay.set(stall, 40 * kMillisecond);
    EXPECT_EQ(stall.trigger->delay_ns, -40 * kMillisecond) << "still before the deadline";
    EXPECT_EQ(delay.show(40 * kMillisecond), "-40ms");
    occurrence.set(stall, 1);
    EXPECT_EQ(stall.trigger->occurrence, 1);
  }
  stall.trigger->delay_ns = 2 * kSecond;
  {
    const std::vector<Field> fields = fields_of(stall);
    const Field& delay = field(fields, "trigger delay");
    delay.set(stall, 500 * kMillisecond);
    EXPECT_EQ(stall.trigger->delay_ns, 500 * kMillisecond);
    EXPECT_EQ(delay.show(500 * kMillisecond), "500ms");
  }
}

TEST(ShrinkFields, AFaultLastingUntilADeadlineShrinksItsUntilDelayNotADuration) {
  sim::Fault stop = fault(sim::FaultKind::kStop);
  stop.trigger = sim::Trigger{runtime::EventKind::kWriteSent};
  stop.trigger->aim = sim::Aim::kInFlight;  // no delay of its own
  stop.trigger->until = sim::Aim::kStoreExpiry;
  stop.trigger->until_delay_ns = -3 * kSecond;
  const std::vector<Field> fields = fields_of(stop);
  EXPECT_EQ(names(stop), (std::vector<std::string>{"trigger occurrence", "until delay"}));
  const Field& until = field(fields, "until delay");
  EXPECT_EQ(until.get(stop), 3 * kSecond);
  until.set(stop, kSecond);
  EXPECT_EQ(stop.trigger->until_delay_ns, -kSecond);
  EXPECT_EQ(stop.trigger->delay_ns, 0) << "the delay is another number";
}

TEST(ShrinkFields, ACrashStopsShrinkingAtAMillisecondAndADriftInPpmKeepingItsSign) {
  sim::Fault crash = fault(sim::FaultKind::kCrash);
  const std::vector<Field> crash_fields = fields_of(crash);
  EXPECT_EQ(field(crash_fields, "duration").lower, kMillisecond) << "0 would never restart";
  sim::Fault drift = fault(sim::FaultKind::kClockDrift);
  drift.amount = -150;
  const std::vector<Field> fields = fields_of(drift);
  const Field& ppm = field(fields, "drift");
  EXPECT_EQ(ppm.unit, 1);
  EXPECT_EQ(ppm.get(drift), 150);
  ppm.set(drift, 20);
  EXPECT_EQ(drift.amount, -20);
  EXPECT_EQ(ppm.show(20), "-20 ppm");
}

// Every number a run depends on is in the key: a plan that differs in any one of them is another
// candidate, never one already tried.
TEST(ShrinkFields, APlanDifferingInAnyOneNumberHasAnotherKey) {
  sim::Fault base = fault(sim::FaultKind::kNetworkDrop);
  base.peer = "store";
  base.amount = 5;
  base.probability = 0.5;
  base.trigger = sim::Trigger{runtime::EventKind::kLeaseTaken};
  const sim::FaultPlan plan{{base}};
  const std::string key = plan_key(plan);
  const std::vector<std::function<void(sim::Fault&)>> changes = {
      [](sim::Fault& f) { f.kind = sim::FaultKind::kNetworkDuplicate; },
      [](sim::Fault& f) { f.node = "instance-2"; },
      [](sim::Fault& f) { f.peer = "other"; },
      [](sim::Fault& f) { f.at_ns += 1; },
      [](sim::Fault& f) { f.duration_ns += 1; },
      [](sim::Fault& f) { f.amount += 1; },
      [](sim::Fault& f) { f.probability = 0.49; },
      [](sim::Fault& f) { f.trigger->event = runtime::EventKind::kLeaseRenewed; },
      [](sim::Fault& f) { f.trigger->occurrence += 1; },
      [](sim::Fault& f) { f.trigger->delay_ns += 1; },
      [](sim::Fault& f) { f.trigger->at_node = "instance-2"; },
      [](sim::Fault& f) { f.trigger->aim = sim::Aim::kStoreExpiry; },
      [](sim::Fault& f) { f.trigger->within_permille += 1; },
      [](sim::Fault& f) { f.trigger->until = sim::Aim::kHolderExpiry; },
      [](sim::Fault& f) { f.trigger->until_delay_ns += 1; },
      [](sim::Fault& f) { f.trigger.reset(); },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    sim::FaultPlan changed = plan;
    changes[i](changed.faults.front());
    EXPECT_NE(plan_key(changed), key) << "change " << i;
  }
  // Two faults are two entries: one more fault, or the same faults in another order, differ too.
  sim::Fault second = fault(sim::FaultKind::kStall);
  EXPECT_NE(plan_key(sim::FaultPlan{{base, second}}), plan_key(sim::FaultPlan{{second, base}}));
  EXPECT_NE(plan_key(sim::FaultPlan{{base, base}}), key);
  EXPECT_EQ(plan_key(sim::FaultPlan{{base}}), key) << "the same plan, the same key";
}

}  // namespace
}  // namespace fencesim::properties::shrink
