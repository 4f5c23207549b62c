#pragma once
// A run as a Chrome trace-event file (JSON), which ui.perfetto.dev and chrome://tracing open: one
// process per node, its steps, leases held (as the holder believed) and faults as spans, its
// takes, renewals, writes, marks and violations as instants, and the epoch of each key at the
// lease store as a counter. Times are microseconds of virtual time (fractional, so nanoseconds
// survive). Deterministic: the same run gives the same file.
#include <nlohmann/json.hpp>

#include "properties/run.h"
#include "sim/world.h"

namespace fencesim::reports {

nlohmann::ordered_json perfetto_trace(const sim::World& world, const properties::RunReport& report);

}  // namespace fencesim::reports
