#include "properties/shrink_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "scenarios/spec_durations.h"

namespace fencesim::properties::shrink {

namespace {

constexpr std::int64_t kShrinkMs = 1'000'000;

using scenarios::spec::format_duration;

bool has_duration(sim::FaultKind kind) {
  return kind != sim::FaultKind::kClockDrift && kind != sim::FaultKind::kClockStep;
}

bool has_amount(sim::FaultKind kind) {
  switch (kind) {
    case sim::FaultKind::kMigrate:
    case sim::FaultKind::kClockDrift:
    case sim::FaultKind::kClockStep:
    case sim::FaultKind::kNetworkDelay:
    case sim::FaultKind::kStoreSlow:
      return true;
    default:
      return false;
  }
}

bool has_probability(sim::FaultKind kind) {
  return kind == sim::FaultKind::kNetworkDrop || kind == sim::FaultKind::kNetworkDuplicate;
}

// A signed offset of a trigger (delay_ns, until_delay_ns): aimed at a deadline it may be negative,
// and its magnitude shrinks toward the deadline itself, keeping its sign.
Field signed_trigger_field(std::string name, const sim::Trigger& trigger,
                           std::int64_t sim::Trigger::*member) {
  const std::int64_t sign = trigger.*member < 0 ? -1 : 1;
  return Field{std::move(name),
               0,
               kShrinkMs,
               [member](const sim::Fault& f) { return std::llabs((*f.trigger).*member); },
               [sign, member](sim::Fault& f, std::int64_t v) { (*f.trigger).*member = sign * v; },
               [sign](std::int64_t v) { return format_duration(sign * v); }};
}

}  // namespace

std::vector<Field> fields_of(const sim::Fault& fault) {
  std::vector<Field> fields;
  if (fault.trigger) {
    fields.push_back(
        Field{"trigger occurrence", 1, 1, [](const sim::Fault& f) { return f.trigger->occurrence; },
              [](sim::Fault& f, std::int64_t v) { f.trigger->occurrence = static_cast<int>(v); },
              [](std::int64_t v) { return fmt::format("#{}", v); }});
    // In flight, the point of the flight is the aim: there is no delay.
    if (fault.trigger->aim != sim::Aim::kInFlight) {
      fields.push_back(
          signed_trigger_field("trigger delay", *fault.trigger, &sim::Trigger::delay_ns));
    }
    if (fault.trigger->until != sim::Aim::kEvent) {
      fields.push_back(
          signed_trigger_field("until delay", *fault.trigger, &sim::Trigger::until_delay_ns));
    }
  } else {
    fields.push_back(Field{"time", 0, kShrinkMs, [](const sim::Fault& f) { return f.at_ns; },
                           [](sim::Fault& f, std::int64_t v) { f.at_ns = v; }, format_duration});
  }
  // A fault that lasts until a deadline has no duration of its own to shrink.
  if (has_duration(fault.kind) && !(fault.trigger && fault.trigger->until != sim::Aim::kEvent)) {
    // A crash of duration 0 never restarts: that is not a simpler crash, so it stops at 1 ms.
    const std::int64_t lower = fault.kind == sim::FaultKind::kCrash ? kShrinkMs : 0;
    fields.push_back(
        Field{"duration", lower, kShrinkMs, [](const sim::Fault& f) { return f.duration_ns; },
              [](sim::Fault& f, std::int64_t v) { f.duration_ns = v; }, format_duration});
  }
  if (has_amount(fault.kind)) {
    // The magnitude shrinks toward 0; the sign stays.
    const std::int64_t sign = fault.amount < 0 ? -1 : 1;
    const bool ppm = fault.kind == sim::FaultKind::kClockDrift;
    fields.push_back(Field{ppm ? "drift" : "amount", 0, ppm ? 1 : kShrinkMs,
                           [](const sim::Fault& f) { return std::llabs(f.amount); },
                           [sign](sim::Fault& f, std::int64_t v) { f.amount = sign * v; },
                           [sign, ppm](std::int64_t v) {
                             return ppm ? fmt::format("{} ppm", sign * v)
                                        : format_duration(sign * v);
                           }});
  }
  if (has_probability(fault.kind)) {
    fields.push_back(Field{
        "probability", 0, 1,
        [](const sim::Fault& f) {
          return static_cast<std::int64_t>(std::ceil(f.probability * 100));
        },
        [](sim::Fault& f, std::int64_t v) { f.probability = static_cast<double>(v) / 100.0; },
        [](std::int64_t v) { return fmt::format("{:.2f}", static_cast<double>(v) / 100.0); }});
  }
  return fields;
}

std::string plan_key(const sim::FaultPlan& plan) {
  std::string key;
  for (const sim::Fault& f : plan.faults) {
    key += fmt::format("{}|{}|{}|{}|{}|{}|{}|", to_string(f.kind), f.node, f.peer, f.at_ns,
                       f.duration_ns, f.amount, f.probability);
    if (f.trigger) {
      key += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", runtime::to_string(f.trigger->event),
                         f.trigger->occurrence, f.trigger->delay_ns, f.trigger->at_node,
                         sim::to_string(f.trigger->aim), f.trigger->within_permille,
                         sim::to_string(f.trigger->until), f.trigger->until_delay_ns);
    }
    key += ';';
  }
  return key;
}

}  // namespace fencesim::properties::shrink
