// perfetto_trace: the timeline's pieces (reports/timeline_parts.h) as Chrome trace events. Spans
// on one thread must nest in Perfetto, and leases, steps and faults overlap freely, so each node
// (a process) gets its tracks (threads) by concern, and overlapping spans of one concern are packed
// into numbered tracks in start order, the first that is free.
#include "reports/perfetto.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "reports/replay_file.h"
#include "reports/timeline_parts.h"

namespace fencesim::reports {

using timeline::Json;

namespace {

double micros(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

std::int64_t ns_of(const Json& value) {
  return value.is_number() ? value.get<std::int64_t>() : 0;
}

// The trace's processes (one per node, pid = node + 1, since some viewers hide pid 0) and their
// threads, named in the order they are first used.
class Tracks {
 public:
  int pid(sim::NodeId node) const { return static_cast<int>(node) + 1; }

  // The thread named `name` of node's process.
  int named(sim::NodeId node, const std::string& name) {
    auto& threads = threads_[node];
    auto it = threads.find(name);
    if (it != threads.end()) return it->second;
    // Unique across processes too (pid * 1000 + n): some importers key threads by tid alone.
    const int tid = pid(node) * 1000 + static_cast<int>(threads.size()) + 1;
    threads.emplace(name, tid);
    order_.push_back({node, tid, name});
    return tid;
  }

  // A thread of `family` on which [start, end] overlaps no earlier span: spans must come in start
  // order.
  int packed(sim::NodeId node, const std::string& family, std::int64_t start, std::int64_t end) {
    std::vector<std::int64_t>& ends = free_at_[{node, family}];
    std::size_t lane = 0;
    while (lane < ends.size() && ends[lane] > start) ++lane;
    if (lane == ends.size()) ends.push_back(end);
    ends[lane] = std::max(end, start);
    return named(node, lane == 0 ? family : fmt::format("{} #{}", family, lane + 1));
  }

  void metadata(const sim::World& world, Json& out) const {
    const std::vector<std::string>& names = world.node_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto node = static_cast<sim::NodeId>(i);
      out.push_back(meta("process_name", node, pid(node) * 1000, Json{{"name", names[i]}}));
      out.push_back(meta("process_sort_index", node, pid(node) * 1000, Json{{"sort_index", i}}));
    }
    for (const Thread& thread : order_) {
      out.push_back(meta("thread_name", thread.node, thread.tid, Json{{"name", thread.name}}));
      out.push_back(meta("thread_sort_index", thread.node, thread.tid,
                         Json{{"sort_index", thread.tid % 1000}}));
    }
  }

 private:
  struct Thread {
    sim::NodeId node;
    int tid;
    std::string name;
  };
  Json meta(const char* name, sim::NodeId node, int tid, Json args) const {
    return Json{{"name", name},           {"ph", "M"},  {"ts", 0},
                {"pid", pid(node)},       {"tid", tid}, {"cat", "__metadata"},
                {"args", std::move(args)}};
  }
  std::map<sim::NodeId, std::map<std::string, int>> threads_;
  std::map<std::pair<sim::NodeId, std::string>, std::vector<std::int64_t>> free_at_;
  std::vector<Thread> order_;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(const sim::World& world) : world_(world) {}

  void span(sim::NodeId node, int tid, const std::string& name, const char* category,
            std::int64_t start, std::int64_t end, Json args) {
    events_.push_back(Json{{"name", name},
                           {"cat", category},
                           {"ph", "X"},
                           {"ts", micros(start)},
                           // The difference of the two rounded times, so that ts + dur is the end
                           // exactly: a span that ends where the next starts must not overlap it.
                           {"dur", std::max(micros(end) - micros(start), 0.0)},
                           {"pid", tracks_.pid(node)},
                           {"tid", tid},
                           {"args", std::move(args)}});
  }
  void instant(sim::NodeId node, int tid, const std::string& name, const char* category,
               std::int64_t at, Json args, const char* scope = "t") {
    events_.push_back(Json{{"name", name},
                           {"cat", category},
                           {"ph", "i"},
                           {"s", scope},
                           {"ts", micros(at)},
                           {"pid", tracks_.pid(node)},
                           {"tid", tid},
                           {"args", std::move(args)}});
  }
  void counter(sim::NodeId node, const std::string& name, std::int64_t at, Json args) {
    events_.push_back(Json{{"name", name},
                           {"cat", "epoch"},
                           {"ph", "C"},
                           {"ts", micros(at)},
                           {"pid", tracks_.pid(node)},
                           {"tid", tracks_.named(node, "epochs")},
                           {"args", std::move(args)}});
  }
  Tracks& tracks() { return tracks_; }

  Json finish() {
    Json all = Json::array();
    tracks_.metadata(world_, all);
    for (Json& event : events_) all.push_back(std::move(event));
    return all;
  }

 private:
  const sim::World& world_;
  Tracks tracks_;
  std::vector<Json> events_;
};

sim::NodeId node_of(const Json& item) {
  return item["node"].get<sim::NodeId>();
}

// The parts of each held lease its holder had confirmed (until the confirmedUntil it computed),
// on tracks of their own beside the held spans, in start order as packing needs.
void add_confirmed(TraceBuilder& trace, const Json& beliefs) {
  std::vector<std::tuple<sim::NodeId, std::int64_t, std::int64_t, std::string>> parts;
  for (const Json& b : beliefs) {
    const std::string lease =
        fmt::format("{} t{}", b["key"].get<std::string>(), b["token"].get<runtime::Token>());
    for (const Json& part : b["confirmed"]) {
      parts.emplace_back(node_of(b), ns_of(part[0]), ns_of(part[1]), lease);
    }
  }
  std::sort(parts.begin(), parts.end());
  for (const auto& [node, start, end, lease] : parts) {
    const int tid = trace.tracks().packed(node, "leases confirmed (belief)", start, end);
    trace.span(node, tid, "confirmed " + lease, "belief", start, end, Json::object());
  }
}

void add_beliefs(TraceBuilder& trace, const Json& beliefs) {
  for (const Json& b : beliefs) {
    const sim::NodeId node = node_of(b);
    const std::int64_t start = ns_of(b["taken_ns"]);
    const std::int64_t end = ns_of(b["ended_ns"]);
    const int tid = trace.tracks().packed(node, "leases (belief)", start, end);
    const std::string lease =
        fmt::format("{} t{}", b["key"].get<std::string>(), b["token"].get<runtime::Token>());
    trace.span(node, tid, "held " + lease, "belief", start, end,
               Json{{"holder", b["holder"]},
                    {"confirmed_until_us", micros(ns_of(b["confirmed_until_ns"]))},
                    {"end", b["end_kind"]},
                    {"end_detail", b["end_detail"]},
                    {"event", b["event"]}});
    const int events_tid = trace.tracks().named(node, "events");
    trace.instant(node, events_tid, "take " + lease, "belief", start, Json{{"event", b["event"]}});
    for (const Json& renewal : b["renewals"]) {
      const bool refused = renewal.contains("refused");
      trace.instant(node, events_tid, (refused ? "renew refused " : "renewed ") + lease, "belief",
                    ns_of(renewal["t"]), renewal);
    }
  }
  add_confirmed(trace, beliefs);
}

void add_steps(TraceBuilder& trace, const Json& steps) {
  for (const Json& s : steps) {
    const sim::NodeId node = node_of(s);
    const std::int64_t start = ns_of(s["started_ns"]);
    const std::int64_t end = ns_of(s["ended_ns"]);
    const int tid = trace.tracks().packed(node, "steps", start, end);
    trace.span(node, tid, fmt::format("step {}", s["step"].get<std::string>()), "step", start, end,
               Json{{"key", s["key"]},
                    {"token", s["token"]},
                    {"outcome", s["outcome"]},
                    {"event", s["event"]}});
  }
}

// A write's request on a track of its own ("writes in flight"), from its send to its reply (or
// the end of the run): since a step's call ends at the abort and leaves its request in flight
// (ADR-0023, Consequences), a request can outlive the step that sent it, so it is not drawn
// inside the step's span but beside it.
void add_requests(TraceBuilder& trace, const Json& attempts, std::int64_t end_ns) {
  for (const Json& a : attempts) {
    const sim::NodeId node = node_of(a);
    const std::int64_t start = ns_of(a["t"]);
    const std::int64_t end = a.contains("reply_ns") ? ns_of(a["reply_ns"]) : end_ns;
    const int tid = trace.tracks().packed(node, "writes in flight", start, end);
    trace.span(node, tid,
               fmt::format("request t{} {}", a["token"].get<runtime::Token>(),
                           a["step"].get<std::string>()),
               "request", start, end,
               Json{{"key", a["key"]},
                    {"token", a["token"]},
                    {"step", a["step"]},
                    {"reply", a["reply"]},
                    {"event", a["event"]}});
  }
}

void add_faults(TraceBuilder& trace, const Json& faults) {
  for (const Json& f : faults) {
    const sim::NodeId node = node_of(f);
    const std::int64_t start = ns_of(f["start_ns"]);
    const std::int64_t end = ns_of(f["end_ns"]);
    const int tid = trace.tracks().packed(node, "faults", start, end);
    trace.span(node, tid, f["kind"].get<std::string>(), "fault", start, end,
               Json{{"description", f["description"]}, {"event", f["event"]}});
  }
}

void add_truth(TraceBuilder& trace, const Json& timeline) {
  for (const Json& e : timeline["epochs"]) {
    const sim::NodeId node = node_of(e);
    const std::string key = e["key"].get<std::string>();
    const std::int64_t start = ns_of(e["granted_ns"]);
    trace.span(
        node, trace.tracks().named(node, "key " + key),
        fmt::format("t{} {}", e["token"].get<runtime::Token>(), e["holder"].get<std::string>()),
        "truth", start, ns_of(e["ended_ns"]),
        Json{{"valid_until_us", micros(ns_of(e["valid_until_ns"]))},
             {"end", e["end_kind"]},
             {"event", e["event"]}});
    trace.counter(node, "epoch " + key, start, Json{{"epoch", e["token"]}});
  }
  for (const Json& c : timeline["checkpoints"]) {
    const sim::NodeId node = node_of(c);
    trace.instant(node, trace.tracks().named(node, "key " + c["key"].get<std::string>()),
                  fmt::format("checkpoint {} t{} {}", c["step"].get<std::string>(),
                              c["token"].get<runtime::Token>(), c["outcome"].get<std::string>()),
                  "truth", ns_of(c["t"]), c);
  }
  for (const Json& w : timeline["writes"]) {
    const sim::NodeId node = node_of(w);
    trace.instant(node, trace.tracks().named(node, "scope " + w["scope_key"].get<std::string>()),
                  fmt::format("write t{} {}", w["token"].get<runtime::Token>(),
                              w["outcome"].get<std::string>()),
                  "truth", ns_of(w["t"]), w);
  }
}

void add_world(TraceBuilder& trace, const Json& timeline) {
  for (const Json& a : timeline["attempts"]) {
    const sim::NodeId node = node_of(a);
    trace.instant(node, trace.tracks().named(node, "events"),
                  fmt::format("write sent t{} ({})", a["token"].get<runtime::Token>(),
                              a["reply"].get<std::string>()),
                  "belief", ns_of(a["t"]), a);
  }
  for (const Json& m : timeline["marks"]) {
    const sim::NodeId node = node_of(m);
    trace.instant(node, trace.tracks().named(node, "marks"), "mark " + m["name"].get<std::string>(),
                  "mark", ns_of(m["t"]), m);
  }
  for (const Json& p : timeline["phases"]) {
    trace.instant(sim::kWorldNode, trace.tracks().named(sim::kWorldNode, "phases"),
                  "phase " + p["name"].get<std::string>(), "phase", ns_of(p["start_ns"]), p, "g");
  }
  for (const Json& v : timeline["violations"]) {
    const Json& refs = v["refs"];
    const sim::NodeId node = refs.empty() ? sim::kWorldNode : node_of(refs.back());
    trace.instant(node, trace.tracks().named(node, "violations"),
                  "VIOLATION " + v["invariant"].get<std::string>(), "violation",
                  v["at_ns"].is_number() ? ns_of(v["at_ns"]) : 0,
                  Json{{"message", v["message"]}, {"events", v["events"]}}, "g");
  }
}

}  // namespace

nlohmann::ordered_json perfetto_trace(const sim::World& world,
                                      const properties::RunReport& report) {
  const timeline::Frame frame = timeline::make_frame(world, report);
  Json parts{{"beliefs", timeline::belief_spans(frame)},
             {"step_runs", timeline::step_spans(frame)},
             {"attempts", timeline::write_attempts(frame)},
             {"epochs", timeline::store_epochs(frame)},
             {"writes", timeline::sink_writes(frame)},
             {"checkpoints", timeline::checkpoint_judgements(frame)},
             {"faults", timeline::fault_spans(frame, world.fault_plan())},
             {"phases", timeline::phase_spans(frame)},
             {"marks", timeline::mark_events(frame)},
             {"violations", timeline::violation_marks(frame, report.violations)}};
  TraceBuilder trace(world);
  add_beliefs(trace, parts["beliefs"]);
  add_steps(trace, parts["step_runs"]);
  add_requests(trace, parts["attempts"], frame.end_ns);
  add_faults(trace, parts["faults"]);
  add_truth(trace, parts);
  add_world(trace, parts);
  const properties::RunRequest& request = report.request;
  return Json{{"traceEvents", trace.finish()},
              {"displayTimeUnit", "ms"},
              {"otherData",
               {{"scenario", request.scenario},
                {"seed", std::to_string(request.seed)},
                {"strategy", strategy_name(request)},
                {"status", properties::to_string(report.status)},
                {"history_hash", hash_hex(report.history_hash)},
                {"fencesim_version", fencesim_version()}}}};
}

}  // namespace fencesim::reports
