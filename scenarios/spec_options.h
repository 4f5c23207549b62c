#pragma once
// The [options] table of a spec: the world's options a spec may set (durations with units).
//   safety_phase, liveness_budget, lease_ttl, renew_interval, drift_margin_min, poll_interval,
//   rpc_timeout: durations; latency: a duration or [min, max]; drift_bound_ppm, step_limit:
//   integers.
#include <cstdint>
#include <optional>

#include "scenarios/spec_values.h"
#include "sim/world.h"

namespace fencesim::scenarios::spec {

struct Setting {
  std::int64_t value = 0;
  std::uint32_t line = 0;
};

struct Options {
  std::optional<Setting> safety_phase_ns;
  std::optional<Setting> liveness_budget_ns;
  std::optional<Setting> lease_ttl_ns;
  std::optional<Setting> renew_interval_ns;
  std::optional<Setting> drift_bound_ppm;
  std::optional<Setting> drift_margin_min_ns;
  std::optional<Setting> poll_interval_ns;
  std::optional<Setting> rpc_timeout_ns;
  std::optional<Range> latency_ns;
  std::uint32_t latency_line = 0;
  std::optional<Setting> step_limit;
};

Options read_options(const SpecReader& reader, const toml::node& node);

// Sets what the spec gives, over what the workload configured.
void apply_options(const Options& options, sim::WorldOptions& world);

// Checks that the options, applied over the workload's, make a world the protocol can run in
// (renewals inside the lease, a drift margin smaller than the lease); errors name the spec's key.
void check_options(const SpecReader& reader, const Options& options,
                   const sim::WorldOptions& world);

}  // namespace fencesim::scenarios::spec
