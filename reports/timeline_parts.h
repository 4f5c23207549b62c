#pragma once
// The pieces of a run's timeline, read out of its history in one pass each: what the holders
// believed (instance side) and what the stores and sinks recorded (the truth), the faults as spans,
// the phases and the marks. Shared by the HTML timeline and the Perfetto trace, so that both draw
// the same spans. Every item names its node (an index into the world's nodes), carries times in
// true virtual nanoseconds, and points at the history events it came from ("event", "end_event").
#include <cstdint>
#include <nlohmann/json.hpp>

#include "properties/invariants_builtin.h"
#include "properties/run.h"
#include "sim/world.h"

namespace fencesim::reports::timeline {

using Json = nlohmann::ordered_json;

// What every extraction needs besides the history: when the run ended, when the quiet phase
// began (faults are healed then), and the clocks' rates to take a node's readings to true time.
struct Frame {
  const sim::World& world;
  properties::RunFacts facts;
  std::int64_t end_ns = 0;
  std::int64_t quiet_ns = 0;  // end_ns when the run never reached its quiet phase
};

Frame make_frame(const sim::World& world, const properties::RunReport& report);

// Instance side (timeline_belief.cpp).
// Per (holder, key, token): taken, renewed (each with the confirmedUntil it computed, in true
// time), and when the holder stopped believing (lost, released, crashed, or the run ended).
Json belief_spans(const Frame& frame);
// Each step run at a holder, from its start to its end with the outcome.
Json step_spans(const Frame& frame);
// Each fenced write a holder sent, with the reply it got (accepted, refused, none).
Json write_attempts(const Frame& frame);

// Truth (timeline_truth.cpp).
// Per (key, token) at the lease store: granted, renewed, and when it ended (released, expired,
// superseded by the next grant), with the store's expiry in true time.
Json store_epochs(const Frame& frame);
// Each write a sink judged: applied, deduplicated or refused, with its token and high-water mark.
Json sink_writes(const Frame& frame);
// Each checkpoint the store judged: committed or refused, with the key's epoch then.
Json checkpoint_judgements(const Frame& frame);

// World (timeline_world.cpp).
// Each fault applied, as a span from when it fired to when it ended (a paused node resumed, a
// crashed one restarted, its duration elapsed or the world healed); a clock step is an instant.
Json fault_spans(const Frame& frame, const sim::FaultPlan& plan);
// Aimed faults that did not fire: their deadline did not exist when their event came.
Json missed_aims(const Frame& frame);
Json phase_spans(const Frame& frame);
Json mark_events(const Frame& frame);
// The violations, each with its events' times and nodes and the time it is drawn at (its latest
// event's).
Json violation_marks(const Frame& frame, const std::vector<properties::Violation>& violations);

// The true time at which `node`'s monotonic clock reads `target_monotonic_ns`, from an event of
// that node (its time and its monotonic reading).
std::int64_t true_time(const Frame& frame, const sim::HistoryEvent& event,
                       std::int64_t target_monotonic_ns);

}  // namespace fencesim::reports::timeline
