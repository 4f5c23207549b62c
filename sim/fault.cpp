#include "sim/fault.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace fencesim::sim {

namespace {
constexpr std::array<std::pair<FaultKind, std::string_view>, 12> kNames{{
    {FaultKind::kStall, "stall"},
    {FaultKind::kStop, "stop"},
    {FaultKind::kMigrate, "migrate"},
    {FaultKind::kCrash, "crash"},
    {FaultKind::kClockDrift, "clock-drift"},
    {FaultKind::kClockStep, "clock-step"},
    {FaultKind::kNetworkDelay, "network-delay"},
    {FaultKind::kNetworkDrop, "network-drop"},
    {FaultKind::kNetworkDuplicate, "network-duplicate"},
    {FaultKind::kPartition, "partition"},
    {FaultKind::kStoreSlow, "store-slow"},
    {FaultKind::kStoreDown, "store-down"},
}};
constexpr std::array<std::pair<Aim, std::string_view>, 5> kAims{{
    {Aim::kEvent, "event"},
    {Aim::kHolderExpiry, "holder-expiry"},
    {Aim::kStoreExpiry, "store-expiry"},
    {Aim::kRpcTimeout, "rpc-timeout"},
    {Aim::kInFlight, "in-flight"},
}};

std::string signed_ms(std::int64_t ns) {
  return fmt::format("{} {} ms", ns < 0 ? '-' : '+', std::llabs(ns) / 1'000'000);
}

// "after write-sent #1 at instance-1 + 50 ms", "aimed at holder-expiry - 5 ms after lease-renewed
// #2 at instance-1": what the world records as the fault is applied, so it names the plan's fault,
// not what the world worked out from it.
std::string trigger_text(const Fault& fault) {
  const Trigger& t = *fault.trigger;
  const std::string event = fmt::format("{} #{} at {}", runtime::to_string(t.event), t.occurrence,
                                        t.at_node.empty() ? fault.node : t.at_node);
  if (t.aim == Aim::kEvent) {
    return fmt::format("after {}{}", event,
                       t.delay_ns ? fmt::format(" + {} ms", t.delay_ns / 1'000'000) : "");
  }
  std::string aim = fmt::format("aimed at {}", to_string(t.aim));
  if (t.aim == Aim::kInFlight) {
    aim += fmt::format(" ({}.{}% of the way)", t.within_permille / 10, t.within_permille % 10);
  } else if (t.delay_ns != 0) {
    aim += " " + signed_ms(t.delay_ns);
  }
  return aim + " after " + event;
}

}  // namespace

std::string_view to_string(Aim aim) {
  for (const auto& [a, name] : kAims) {
    if (a == aim) return name;
  }
  return "unknown";
}

std::optional<Aim> aim_from_string(std::string_view name) {
  for (const auto& [a, n] : kAims) {
    if (n == name) return a;
  }
  return std::nullopt;
}

bool at_departure(Aim aim) { return aim == Aim::kRpcTimeout || aim == Aim::kInFlight; }

std::string_view to_string(FaultKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<FaultKind> fault_kind_from_string(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string describe(const Fault& fault) {
  std::string when = fault.trigger
                         ? trigger_text(fault)
                         : fmt::format("at {:.3f} s", static_cast<double>(fault.at_ns) / 1e9);
  std::string what = fmt::format("{} {}", to_string(fault.kind), fault.node);
  if (!fault.peer.empty()) what += " <-> " + fault.peer;
  if (fault.trigger && fault.trigger->until != Aim::kEvent) {
    // Its length is worked out when it fires: the plan says until when.
    what += fmt::format(" until {}", to_string(fault.trigger->until));
    if (fault.trigger->until_delay_ns != 0) what += " " + signed_ms(fault.trigger->until_delay_ns);
  } else if (fault.duration_ns) {
    what += fmt::format(" for {} ms", fault.duration_ns / 1'000'000);
  }
  switch (fault.kind) {
    case FaultKind::kClockDrift:
      what += fmt::format(" {} ppm", fault.amount);
      break;
    case FaultKind::kClockStep:
    case FaultKind::kMigrate:
      what += fmt::format(" wall step {} ms", fault.amount / 1'000'000);
      break;
    case FaultKind::kNetworkDelay:
    case FaultKind::kStoreSlow:
      what += fmt::format(" +{} ms", fault.amount / 1'000'000);
      break;
    case FaultKind::kNetworkDrop:
    case FaultKind::kNetworkDuplicate:
      what += fmt::format(" p={:.2f}", fault.probability);
      break;
    default:
      break;
  }
  return what + " " + when;
}

bool within_assumptions(const FaultPlan& plan, std::int64_t drift_bound_ppm,
                        const std::vector<std::string>& stores) {
  for (const Fault& fault : plan.faults) {
    if (fault.kind == FaultKind::kClockDrift && std::llabs(fault.amount) > drift_bound_ppm) {
      return false;
    }
    const bool steps_wall = fault.kind == FaultKind::kClockStep ||
                            (fault.kind == FaultKind::kMigrate && fault.amount != 0);
    if (steps_wall && std::find(stores.begin(), stores.end(), fault.node) != stores.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace fencesim::sim
