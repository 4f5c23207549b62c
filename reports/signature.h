#pragma once
// A failure's signature: a line that stays the same across seeds for the same bug, so that a
// sweep's thousand failures of one bug become one group (docs/reports.md, "Failure signatures").
//
// - A violation: its invariant, then the events it points at (Violation::events), each reduced to
//   what does not vary by seed: the event's kind, the role of the node it happened at (instance,
//   store, sink, world), and its outcome code where the kind has one (why a lease was lost, a
//   step's outcome). Ids, holders, tenants, trees, steps, scope keys, tokens and times are left
//   out, a term that repeats (three applies of one effect) counts once, and phase events (the
//   run's structure) are skipped. It is read from the violation's structured parts and the
//   history, never from its message, whose wording may change.
// - A liveness failure: "liveness: " and the kind of stall (deadlock, trees not completed).
// - A harness error: "harness: " with its kind (an exception in a simulated fiber, one out of the
//   harness, a worker killed by a signal, a worker past --run-timeout) and its site (the fiber,
//   the check's file and line), with numbers that vary by seed replaced by '#'.
// - Nondeterminism: "replay: ..." (a re-run gave another history hash).
#include <string>
#include <string_view>

#include "properties/invariant.h"
#include "properties/run.h"
#include "reports/run_record.h"
#include "sim/world.h"

namespace fencesim::reports {

// The signature of the violation `violation` of the finished run of `world`.
std::string violation_signature(const sim::World& world, const properties::Violation& violation);

// The signature of a finished run that did not pass: its first violation's, or its liveness
// failure's or harness error's; "" for a run that passed.
std::string run_signature(const sim::World& world, const properties::RunReport& report);

// A harness error's signature from its detail (the text the scheduler or the sweep's parent wrote:
// the world cannot say more than that about an exception it caught).
std::string harness_signature(std::string_view detail);
std::string liveness_signature(std::string_view detail);
// With what the run was stuck on (properties::RunReport::stuck): "liveness: deadlock: tree
// (instance) waits on branches to end; branch (instance) waits on the 'take reply'", "liveness:
// time-limit: tree: placement pending, ..."; terms sorted and each once, as the world gives them.
std::string liveness_signature(std::string_view detail, const std::vector<std::string>& stuck);

// The signature a record is grouped by: the one its worker computed; for a nondeterministic run
// the replay one; for a record without one (runs.jsonl of an older fencesim) the invariant or
// status alone, so that it still groups, if more coarsely.
std::string record_signature(const RunRecord& record);

// 8 hex digits of the signature's hash: a short, stable name for a group (anchors, file names).
std::string signature_id(std::string_view signature);

}  // namespace fencesim::reports
