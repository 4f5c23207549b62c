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
}  // namespace

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
  std::string when =
      fault.trigger
          ? fmt::format("after {} #{} at {}{}", runtime::to_string(fault.trigger->event),
                        fault.trigger->occurrence,
                        fault.trigger->at_node.empty() ? fault.node : fault.trigger->at_node,
                        fault.trigger->delay_ns
                            ? fmt::format(" + {} ms", fault.trigger->delay_ns / 1'000'000)
                            : "")
          : fmt::format("at {:.3f} s", static_cast<double>(fault.at_ns) / 1e9);
  std::string what = fmt::format("{} {}", to_string(fault.kind), fault.node);
  if (!fault.peer.empty()) what += " <-> " + fault.peer;
  if (fault.duration_ns) what += fmt::format(" for {} ms", fault.duration_ns / 1'000'000);
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
