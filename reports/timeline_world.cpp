// The world's side of a timeline: faults as spans, the phases, the marks a workload reached, and
// the violations pinned to their events.
#include <algorithm>
#include <map>
#include <vector>

#include "properties/marks.h"
#include "reports/timeline_parts.h"

namespace fencesim::reports::timeline {

using sim::WorldEventKind;

Frame make_frame(const sim::World& world, const properties::RunReport& report) {
  Frame frame{world, properties::run_facts(world), report.virtual_ns, report.virtual_ns};
  const std::vector<sim::HistoryEvent>& events = world.history().events();
  if (!events.empty()) frame.end_ns = std::max(frame.end_ns, events.back().time_ns);
  frame.quiet_ns = frame.end_ns;
  for (const sim::HistoryEvent& e : events) {
    if (e.world == WorldEventKind::kPhase && e.detail == "quiet") frame.quiet_ns = e.time_ns;
  }
  return frame;
}

namespace {

// The plan's fault that an applied event describes (the world records describe(fault)).
const sim::Fault* planned_fault(const sim::FaultPlan& plan, const std::string& node,
                                const std::string& detail) {
  for (const sim::Fault& fault : plan.faults) {
    if (fault.node == node && sim::describe(fault) == detail) return &fault;
  }
  return nullptr;
}

bool pauses(sim::FaultKind kind) {
  return kind == sim::FaultKind::kStall || kind == sim::FaultKind::kStop ||
         kind == sim::FaultKind::kMigrate;
}

// When a fault that ends by itself ends: its duration, cut short by the healing of the quiet phase;
// a drift lasts to the end of the run (healing does not reset clocks); a step is an instant.
std::int64_t own_end(const Frame& frame, const sim::Fault& fault, std::int64_t start_ns) {
  if (fault.kind == sim::FaultKind::kClockStep) return start_ns;
  if (fault.kind == sim::FaultKind::kClockDrift) return frame.end_ns;
  return std::min(start_ns + fault.duration_ns, std::max(frame.quiet_ns, start_ns));
}

Json new_fault(const sim::HistoryEvent& e, const sim::Fault* fault) {
  const std::string kind =
      fault ? std::string(sim::to_string(fault->kind)) : e.detail.substr(0, e.detail.find(' '));
  return Json{{"node", e.node},
              {"kind", kind},
              {"peer", fault ? fault->peer : std::string()},
              {"description", e.detail},
              {"start_ns", e.time_ns},
              {"event", e.index}};
}

// The deadline a fault was aimed at (and the one it lasted until), for the timeline to draw the
// fault against it.
Json aim_json(const sim::FaultAim& aim) {
  Json out{{"aim", std::string(sim::to_string(aim.aim))},
           {"deadline_ns", aim.deadline_ns},
           {"fires_ns", aim.fires_ns},
           {"lease", aim.lease}};
  if (aim.until != sim::Aim::kEvent) {
    out["until"] = std::string(sim::to_string(aim.until));
    out["until_deadline_ns"] = aim.until_deadline_ns;
    out["ends_ns"] = aim.ends_ns;
  }
  return out;
}

}  // namespace

Json missed_aims(const Frame& frame) {
  // Aimed faults that never fired: the deadline they were aimed at did not exist (no lease held,
  // the message lost on the way), or the process it belonged to died first. Shown where their
  // event came, so a story that missed its moment says so on the timeline too.
  Json out = Json::array();
  const std::vector<sim::HistoryEvent>& events = frame.world.history().events();
  std::size_t next = 0;
  const std::vector<sim::FaultAim>& aims = frame.world.fault_aims();
  for (const sim::HistoryEvent& e : events) {
    if (e.world != WorldEventKind::kFaultAimed) continue;
    const std::size_t index = next++;
    if (index >= aims.size() || aims[index].missed.empty()) continue;
    out.push_back(Json{{"node", e.node},
                       {"t", e.time_ns},
                       {"event", e.index},
                       {"aim", std::string(sim::to_string(aims[index].aim))},
                       {"description", aims[index].fault},
                       {"missed", aims[index].missed}});
  }
  return out;
}

Json fault_spans(const Frame& frame, const sim::FaultPlan& plan) {
  Json spans = Json::array();
  // Node -> the fault spans waiting for their node to resume (pauses) or restart (crashes). A node
  // can take a second pause while the first still holds it (a stall during a SIGSTOP): one resume
  // ends both, so every waiting span is kept, not only the latest.
  using Waiting = std::map<sim::NodeId, std::vector<std::size_t>>;
  Waiting paused;
  Waiting crashed;
  const auto finish = [&](Waiting& waiting, const sim::HistoryEvent& e) {
    auto it = waiting.find(e.node);
    if (it == waiting.end()) return;
    for (std::size_t index : it->second) {
      spans[index]["end_ns"] = e.time_ns;
      spans[index]["end_event"] = e.index;
    }
    waiting.erase(it);
  };
  const std::vector<std::string>& names = frame.world.node_names();
  // The world opens one ledger entry per fault it applies, in the order it records them: the
  // n-th kFaultApplied is the n-th effect (sim/fault_ledger.h).
  const std::vector<sim::FaultEffect>& effects = frame.world.fault_effects();
  // A fault aimed at a deadline: what the world worked out for it, by its ledger entry.
  std::map<std::size_t, const sim::FaultAim*> aims;
  for (const sim::FaultAim& aim : frame.world.fault_aims()) {
    if (aim.effect) aims.emplace(*aim.effect, &aim);
  }
  std::size_t applied = 0;
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    if (e.world == WorldEventKind::kNodeResumed) finish(paused, e);
    if (e.world == WorldEventKind::kNodeRestarted) finish(crashed, e);
    if (e.world != WorldEventKind::kFaultApplied) continue;
    const sim::Fault* fault = planned_fault(plan, names.at(e.node), e.detail);
    Json span = new_fault(e, fault);
    const std::size_t index = applied++;
    if (index < effects.size() && effects[index].node == e.node) {
      span["effect"] = effects[index].describe(names);
      span["acted"] = effects[index].acted();
    }
    const auto aimed = aims.find(index);
    if (aimed != aims.end()) span["aim"] = aim_json(*aimed->second);
    if (fault && pauses(fault->kind)) {
      paused[e.node].push_back(spans.size());
    } else if (fault && fault->kind == sim::FaultKind::kCrash) {
      crashed[e.node].push_back(spans.size());
    } else {
      span["end_ns"] = fault ? own_end(frame, *fault, e.time_ns) : e.time_ns;
      if (aimed != aims.end() && aimed->second->ends_ns >= 0) {
        // Its length was worked out from a deadline: the plan's duration is not it.
        span["end_ns"] =
            std::min(aimed->second->ends_ns, std::max(frame.quiet_ns, e.time_ns));
      }
      span["end_event"] = nullptr;
    }
    spans.push_back(std::move(span));
  }
  // Never resumed or restarted: the span lasts to the end of the run.
  for (const auto* waiting : {&paused, &crashed}) {
    for (const auto& [node, indices] : *waiting) {
      for (std::size_t index : indices) {
        spans[index]["end_ns"] = frame.end_ns;
        spans[index]["end_event"] = nullptr;
      }
    }
  }
  return spans;
}

Json phase_spans(const Frame& frame) {
  Json phases = Json::array();
  for (const sim::HistoryEvent& e : frame.world.history().events()) {
    if (e.world != WorldEventKind::kPhase) continue;
    if (!phases.empty()) phases.back()["end_ns"] = e.time_ns;
    phases.push_back(Json{{"name", e.detail}, {"start_ns", e.time_ns}, {"event", e.index}});
  }
  if (!phases.empty()) phases.back()["end_ns"] = frame.end_ns;
  return phases;
}

Json mark_events(const Frame& frame) {
  // Every mark the run's summary counts, at the event that reached it: a workload's own (kMark)
  // and those counted from the history (a refused stale write at its sink, a takeover mid-step at
  // the store's grant), each on the lane of the node where it happened.
  const std::vector<sim::HistoryEvent>& events = frame.world.history().events();
  Json marks = Json::array();
  for (const properties::PlacedMark& mark : properties::place_marks(frame.world)) {
    const sim::HistoryEvent& e = events.at(mark.event);
    marks.push_back(
        Json{{"node", e.node}, {"name", mark.name}, {"t", e.time_ns}, {"event", e.index}});
  }
  return marks;
}

Json violation_marks(const Frame& frame, const std::vector<properties::Violation>& violations) {
  const std::vector<sim::HistoryEvent>& events = frame.world.history().events();
  Json out = Json::array();
  for (const properties::Violation& violation : violations) {
    Json refs = Json::array();
    std::optional<std::int64_t> at_ns;
    for (const std::uint64_t index : violation.events) {
      if (index >= events.size()) continue;  // a checker's bad index is shown, not trusted
      const sim::HistoryEvent& e = events[index];
      refs.push_back(Json{{"event", index}, {"t", e.time_ns}, {"node", e.node}});
      at_ns = std::max(at_ns.value_or(e.time_ns), e.time_ns);
    }
    out.push_back(Json{{"invariant", violation.invariant},
                       {"message", violation.message},
                       {"events", violation.events},
                       {"refs", std::move(refs)},
                       {"at_ns", at_ns ? Json(*at_ns) : Json()}});
  }
  return out;
}

}  // namespace fencesim::reports::timeline
