#pragma once
// The names a spec may use where the code defines them, in one place: the parser checks against
// these lists and a test holds docs/specs.md to them (scenarios/tests/docs_lists_test.cpp).
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace fencesim::scenarios::spec {

// The keys of [options] (scenarios/spec_options.cpp).
inline constexpr std::array<std::string_view, 10> kOptionNames{
    "safety_phase", "liveness_budget", "lease_ttl",   "renew_interval", "drift_bound_ppm",
    "drift_margin_min", "poll_interval", "rpc_timeout", "latency",      "step_limit"};

// Step kinds of a [[workflow]]'s steps, each with the keys it takes (scenarios/spec_topology.cpp);
// `group` takes kind, name and children.
struct StepKindKeys {
  std::string_view kind;
  std::vector<std::string_view> keys;
};
const std::vector<StepKindKeys>& step_kinds();

// Every runtime event name a trigger (`after`) accepts, in the runtime's order.
std::vector<std::string> event_names();
// Every fault kind a [[fault]] accepts.
std::vector<std::string> fault_kind_names();

// The deadlines a fault's `aim` accepts (sim::Aim but the event itself), and those `until` accepts.
inline constexpr std::array<std::string_view, 4> kAimNames{"holder-expiry", "store-expiry",
                                                           "rpc-timeout", "in-flight"};
inline constexpr std::array<std::string_view, 3> kUntilNames{"holder-expiry", "store-expiry",
                                                             "rpc-timeout"};

}  // namespace fencesim::scenarios::spec
