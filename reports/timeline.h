#pragma once
// The belief-versus-truth timeline of one run, as data and as a self-contained HTML page. Per node
// it sets what each holder BELIEVED (the leases it held, until the confirmedUntil it computed, and
// the writes it attempted) against the TRUTH the stores and sinks recorded (epochs granted per key,
// writes applied, refused or deduplicated with their tokens, checkpoints), with the faults as spans
// and the violations pinned to the events that break them. The JSON is what a page draws; the
// sweep keeps it beside each failure so the sweep report can draw it again without the world.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "properties/run.h"
#include "sim/fault.h"
#include "sim/world.h"

namespace fencesim::reports {

// What the run alone does not know: how to replay it, and how its plan was shrunk.
struct TimelineContext {
  std::string replay_command;
  std::optional<sim::FaultPlan> shrunk_plan;
  std::vector<std::string> shrink_removed;  // what shrinking removed, in words
};

// The timeline data of a finished run (the world must have kept its events). Deterministic: the
// same run gives the same JSON, byte for byte. Format "fencesim-timeline", version 1.
nlohmann::ordered_json timeline_json(const sim::World& world, const properties::RunReport& report,
                                     const TimelineContext& context);

// One self-contained HTML page (inline CSS and script, no network) drawing `timeline`.
std::string render_run_html(const nlohmann::ordered_json& timeline);

// One self-contained HTML page for a sweep: its summary (format "fencesim-sweep-summary") and the
// timelines of (some of) its failures, each drawn as on the run page. Missing fields show as "-".
std::string render_sweep_html(const nlohmann::ordered_json& summary,
                              const std::vector<nlohmann::ordered_json>& failure_timelines);

}  // namespace fencesim::reports
