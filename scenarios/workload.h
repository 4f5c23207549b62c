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
// A step that works for `duration`, then writes `payload` to `sink` as its effect `name`, with its
// token and that effect's idempotency key.
runtime::StepItem write_step(sim::World& world, std::string name, runtime::Nanoseconds duration,
                             std::string sink, std::string payload);

// From a step: records the intent (World::intend), then writes `effect` through the step's fence.
// Every workload write goes through here, so the oracles know every effect a workload meant.
runtime::SinkReply write_effect(sim::World& world, runtime::ExecutionContext& ctx,
                                const std::string& sink, std::string_view effect,
                                const std::string& payload);

}  // namespace fencesim::scenarios
