#pragma once
// Building blocks for workloads: steps that work for a while and write to a sink through the
// fence, in the words of the ADR.
#include <string>

#include "runtime/execution_context.h"
#include "runtime/workflow.h"
#include "sim/world.h"

namespace fencesim::scenarios {

// A step that works for `duration` of its node's time.
runtime::StepItem work_step(std::string name, runtime::Nanoseconds duration);
// A step that works for `duration`, then writes `payload` to `sink` with its token and its
// idempotency key.
runtime::StepItem write_step(sim::World& world, std::string name, runtime::Nanoseconds duration,
                             std::string sink, std::string payload);

}  // namespace fencesim::scenarios
