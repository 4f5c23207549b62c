// timeline_json: a run's header (what ran, how it ended, how to replay it), its plans, the
// belief-versus-truth pieces (reports/timeline_parts.h) and a table of its events.
#include "reports/timeline.h"

#include <algorithm>
#include <set>

#include "reports/replay_file.h"
#include "reports/timeline_parts.h"
#include "sim/node_kind.h"

namespace fencesim::reports {

using timeline::Json;

namespace {

// A page stays usable with a long history: past this many events the table keeps the events near
// the violations and then the earliest ones, and says how many it left out. The drawn spans are
// kept whole; only the table is cut.
constexpr std::size_t kMaxTableEvents = 20'000;
constexpr std::uint64_t kNeighbourhood = 500;

Json nodes_json(const sim::World& world) {
  Json nodes = Json::array();
  const std::vector<std::string>& names = world.node_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto id = static_cast<sim::NodeId>(i);
    nodes.push_back(
        Json{{"id", id}, {"name", names[i]}, {"kind", sim::kind_word(world.node_kind(id))}});
  }
  return nodes;
}

Json plan_json(const sim::FaultPlan& plan) {
  Json faults = Json::array();
  for (const sim::Fault& fault : plan.faults) {
    faults.push_back(Json{{"description", sim::describe(fault)}, {"fault", fault_to_json(fault)}});
  }
  return faults;
}

Json event_json(const sim::HistoryEvent& e) {
  Json event{{"i", e.index}, {"t", e.time_ns}, {"node", e.node}, {"mono", e.local_monotonic_ns}};
  if (e.world != sim::WorldEventKind::kRuntime) {
    event["kind"] = sim::to_string(e.world);
    event["detail"] = e.detail;
    return event;
  }
  const sim::RuntimeRecord& r = e.runtime;
  event["kind"] = runtime::to_string(r.kind);
  event["holder"] = r.holder;
  if (!r.key.tenant_id.empty() || !r.key.lease_execution_id.empty()) {
    event["key"] = runtime::to_string(r.key);
  }
  if (!r.scope_key.empty()) event["scope_key"] = r.scope_key;
  if (r.token != runtime::kTokenNone) event["token"] = r.token;
  if (!r.step.empty()) event["step"] = r.step;
  if (!r.detail.empty()) event["detail"] = r.detail;
  if (r.value != 0) event["value"] = r.value;
  return event;
}

// Which events the table keeps (all of them unless the history is long).
std::set<std::uint64_t> kept_events(std::uint64_t total,
                                    const std::vector<properties::Violation>& violations) {
  std::set<std::uint64_t> kept;
  for (const properties::Violation& violation : violations) {
    for (const std::uint64_t index : violation.events) {
      const std::uint64_t from = index > kNeighbourhood ? index - kNeighbourhood : 0;
      for (std::uint64_t i = from; i < std::min(total, index + kNeighbourhood + 1); ++i) {
        if (kept.size() == kMaxTableEvents) return kept;
        kept.insert(i);
      }
    }
  }
  for (std::uint64_t i = 0; i < total && kept.size() < kMaxTableEvents; ++i) kept.insert(i);
  return kept;
}

Json events_json(const sim::World& world, const std::vector<properties::Violation>& violations,
                 std::uint64_t& omitted) {
  const std::vector<sim::HistoryEvent>& events = world.history().events();
  Json table = Json::array();
  omitted = 0;
  if (events.size() <= kMaxTableEvents) {
    for (const sim::HistoryEvent& e : events) table.push_back(event_json(e));
    return table;
  }
  const std::set<std::uint64_t> kept = kept_events(events.size(), violations);
  for (const std::uint64_t index : kept) table.push_back(event_json(events[index]));
  omitted = events.size() - kept.size();
  return table;
}

Json header_json(const properties::RunReport& report, const TimelineContext& context) {
  const properties::RunRequest& request = report.request;
  return Json{{"format", "fencesim-timeline"},
              {"version", 1},
              {"fencesim_version", fencesim_version()},
              {"scenario", request.scenario},
              {"seed", request.seed},
              {"seed_text", std::to_string(request.seed)},
              {"strategy", strategy_name(request)},
              {"sink_double", request.sink_double},
              {"status", properties::to_string(report.status)},
              {"detail", report.detail},
              {"history_hash", hash_hex(report.history_hash)},
              {"events_total", report.events},
              {"virtual_ns", report.virtual_ns},
              {"steps", report.steps},
              {"within_assumptions", report.within_assumptions},
              {"replay_command", context.replay_command}};
}

}  // namespace

nlohmann::ordered_json timeline_json(const sim::World& world, const properties::RunReport& report,
                                     const TimelineContext& context) {
  const timeline::Frame frame = timeline::make_frame(world, report);
  Json document = header_json(report, context);
  document["end_ns"] = frame.end_ns;
  document["ttl_ns"] = frame.facts.ttl_ns;
  document["plan"] = plan_json(report.plan);
  document["shrunk_plan"] = context.shrunk_plan ? plan_json(*context.shrunk_plan) : Json();
  document["shrink_removed"] = context.shrink_removed;
  document["marks_count"] = report.marks;
  document["figures"] = report.figures;
  document["violations"] = timeline::violation_marks(frame, report.violations);
  document["nodes"] = nodes_json(world);
  document["phases"] = timeline::phase_spans(frame);
  document["faults"] = timeline::fault_spans(frame, world.fault_plan());
  document["missed_aims"] = timeline::missed_aims(frame);
  document["beliefs"] = timeline::belief_spans(frame);
  document["step_runs"] = timeline::step_spans(frame);
  document["attempts"] = timeline::write_attempts(frame);
  document["epochs"] = timeline::store_epochs(frame);
  document["writes"] = timeline::sink_writes(frame);
  document["checkpoints"] = timeline::checkpoint_judgements(frame);
  document["marks"] = timeline::mark_events(frame);
  std::uint64_t omitted = 0;
  document["events"] = events_json(world, report.violations, omitted);
  document["events_omitted"] = omitted;
  return document;
}

}  // namespace fencesim::reports
