#pragma once
// The ADR's basic vocabulary: lease keys, tokens, holders, and time in nanoseconds.
#include <compare>
#include <cstdint>
#include <string>

namespace fencesim::runtime {

// A token is the per-key lease epoch: 1 for the first holder of a key, +1 with every take. It
// travels to JavaScript and JSON, so it must stay a safe integer there.
using Token = std::uint64_t;
inline constexpr Token kTokenNone = 0;
inline constexpr Token kTokenMax = (Token{1} << 53) - 1;

// Identifies the instance (process incarnation) holding a lease.
using HolderId = std::string;

// Durations and time points, in nanoseconds of some clock named by the variable.
using Nanoseconds = std::int64_t;
inline constexpr Nanoseconds kMillisecond = 1'000'000;
inline constexpr Nanoseconds kSecond = 1'000'000'000;

// The lease key of ADR-0023: (tenantId, leaseExecutionId).
struct LeaseKey {
  std::string tenant_id;
  std::string lease_execution_id;

  friend auto operator<=>(const LeaseKey&, const LeaseKey&) = default;
  friend bool operator==(const LeaseKey&, const LeaseKey&) = default;
};

std::string to_string(const LeaseKey& key);

}  // namespace fencesim::runtime
