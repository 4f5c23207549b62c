#include "scenarios/spec_options.h"

#include "scenarios/spec_lists.h"

#include <fmt/format.h>

namespace fencesim::scenarios::spec {

namespace {

constexpr std::int64_t kMs = 1'000'000;

Setting duration_setting(const SpecReader& reader, const toml::node& node, std::string_view name,
                         std::int64_t min) {
  return Setting{reader.duration(node, fmt::format("options.{}", name), min),
                 node.source().begin.line};
}

// The key a cross-field error names: the one the spec set, else the first of the pair.
std::uint32_t line_of(const std::optional<Setting>& first, const std::optional<Setting>& second) {
  if (first) return first->line;
  return second ? second->line : 1;
}

}  // namespace

Options read_options(const SpecReader& reader, const toml::node& node) {
  const auto* table = node.as_table();
  if (table == nullptr) reader.fail(node, "options", "must be a table ([options])");
  reader.only_keys(*table, "options.", kOptionNames);
  Options options;
  const auto duration = [&](std::string_view name, std::int64_t min, std::optional<Setting>& out) {
    if (const toml::node* value = table->get(name)) {
      out = duration_setting(reader, *value, name, min);
    }
  };
  duration("safety_phase", kMs, options.safety_phase_ns);
  duration("liveness_budget", kMs, options.liveness_budget_ns);
  duration("lease_ttl", kMs, options.lease_ttl_ns);
  duration("renew_interval", kMs, options.renew_interval_ns);
  duration("drift_margin_min", 0, options.drift_margin_min_ns);
  duration("poll_interval", kMs, options.poll_interval_ns);
  duration("rpc_timeout", kMs, options.rpc_timeout_ns);
  if (const toml::node* value = table->get("drift_bound_ppm")) {
    options.drift_bound_ppm = Setting{reader.integer(*value, "options.drift_bound_ppm", 0, 100'000),
                                      value->source().begin.line};
  }
  if (const toml::node* value = table->get("step_limit")) {
    options.step_limit = Setting{reader.integer(*value, "options.step_limit", 1'000, 1'000'000'000),
                                 value->source().begin.line};
  }
  if (const toml::node* value = table->get("latency")) {
    options.latency_ns = reader.duration_range(*value, "options.latency", 0);
    options.latency_line = value->source().begin.line;
  }
  return options;
}

void apply_options(const Options& options, sim::WorldOptions& world) {
  if (options.safety_phase_ns) world.safety_phase_ns = options.safety_phase_ns->value;
  if (options.liveness_budget_ns) world.liveness_budget_ns = options.liveness_budget_ns->value;
  if (options.lease_ttl_ns) world.lease.ttl_ns = options.lease_ttl_ns->value;
  if (options.renew_interval_ns) world.lease.renew_interval_ns = options.renew_interval_ns->value;
  if (options.drift_bound_ppm) world.lease.drift_bound_ppm = options.drift_bound_ppm->value;
  if (options.drift_margin_min_ns) {
    world.lease.drift_margin_min_ns = options.drift_margin_min_ns->value;
  }
  if (options.poll_interval_ns) world.poll_interval_ns = options.poll_interval_ns->value;
  if (options.rpc_timeout_ns) world.network.rpc_timeout_ns = options.rpc_timeout_ns->value;
  if (options.latency_ns) {
    world.network.latency_min_ns = options.latency_ns->low;
    world.network.latency_max_ns = options.latency_ns->high;
  }
  if (options.step_limit) world.step_limit = static_cast<std::uint64_t>(options.step_limit->value);
}

void check_options(const SpecReader& reader, const Options& options,
                   const sim::WorldOptions& world) {
  if (world.lease.renew_interval_ns >= world.lease.ttl_ns) {
    reader.fail(line_of(options.renew_interval_ns, options.lease_ttl_ns),
                options.renew_interval_ns ? "options.renew_interval" : "options.lease_ttl",
                fmt::format("renewals every {} cannot keep a lease of {}",
                            format_duration(world.lease.renew_interval_ns),
                            format_duration(world.lease.ttl_ns)));
  }
  if (world.lease.drift_margin_ns() >= world.lease.ttl_ns) {
    reader.fail(line_of(options.drift_bound_ppm, options.drift_margin_min_ns),
                options.drift_bound_ppm ? "options.drift_bound_ppm" : "options.drift_margin_min",
                fmt::format("the drift margin ({}) leaves nothing of a lease of {}",
                            format_duration(world.lease.drift_margin_ns()),
                            format_duration(world.lease.ttl_ns)));
  }
}

}  // namespace fencesim::scenarios::spec
