// The Perfetto / Chrome trace of a real run: valid trace-event JSON, one process per node, spans
// that nest on every track, times in microseconds that keep nanoseconds, deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "reports/tests/timeline_fixture.h"

namespace fencesim::reports::perfetto_test {
namespace {

using nlohmann::ordered_json;

// Each track's name, by (pid, tid), from the trace's metadata.
std::map<std::pair<int, int>, std::string> thread_names(const ordered_json& trace) {
  std::map<std::pair<int, int>, std::string> names;
  for (const ordered_json& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      names[{event["pid"].get<int>(), event["tid"].get<int>()}] =
          event["args"]["name"].get<std::string>();
    }
  }
  return names;
}

TEST(PerfettoTest, EveryEventIsWellFormed) {
  const testing::Captured& run = testing::failing_kleppmann();
  // Round-trips through text, as a viewer reads it.
  const ordered_json trace = ordered_json::parse(run.trace.dump());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  ASSERT_TRUE(trace["traceEvents"].is_array());
  ASSERT_FALSE(trace["traceEvents"].empty());
  std::set<std::string> phases;
  bool fractional = false;
  for (const ordered_json& event : trace["traceEvents"]) {
    ASSERT_TRUE(event.contains("ph")) << event.dump();
    ASSERT_TRUE(event["ts"].is_number()) << event.dump();
    ASSERT_TRUE(event["pid"].is_number_integer()) << event.dump();
    ASSERT_TRUE(event["tid"].is_number_integer()) << event.dump();
    ASSERT_TRUE(event["name"].is_string()) << event.dump();
    const std::string ph = event["ph"];
    phases.insert(ph);
    if (ph == "X") {
      EXPECT_GE(event["dur"].get<double>(), 0.0) << event.dump();
    }
    if (ph == "i") {
      EXPECT_TRUE(event["s"] == "t" || event["s"] == "g") << event.dump();
    }
    const double ts = event["ts"].get<double>();
    if (ts != static_cast<double>(static_cast<std::int64_t>(ts))) fractional = true;
  }
  EXPECT_EQ(phases, (std::set<std::string>{"M", "X", "i", "C"}));
  EXPECT_TRUE(fractional) << "nanoseconds survive as fractional microseconds";
}

// nightly-mix seed 8 (pct) stalls a node that a SIGSTOP already holds: one resume ends both
// faults. The first version kept only the latest waiting fault, left the other without an end, and
// the trace aborted on it (found by the sweep).
TEST(PerfettoTest, ASecondPauseOfAPausedNodeEndsWithItsResume) {
  const testing::Captured run =
      testing::run_and_capture("nightly-mix", 8, "accept-stale", {}, sim::Strategy::kPct);
  ASSERT_FALSE(run.timeline["faults"].empty());
  for (const ordered_json& fault : run.timeline["faults"]) {
    ASSERT_TRUE(fault.contains("end_ns")) << fault.dump();
    EXPECT_GE(fault["end_ns"].get<std::int64_t>(), fault["start_ns"].get<std::int64_t>())
        << fault.dump();
  }
  EXPECT_FALSE(run.trace["traceEvents"].empty());
}

TEST(PerfettoTest, OneProcessPerNodeNamedAfterIt) {
  const testing::Captured& run = testing::failing_kleppmann();
  std::map<int, std::string> processes;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name") {
      EXPECT_TRUE(processes.emplace(event["pid"].get<int>(), event["args"]["name"]).second);
    }
  }
  ASSERT_EQ(processes.size(), run.node_names.size());
  for (std::size_t node = 0; node < run.node_names.size(); ++node) {
    EXPECT_EQ(processes.at(static_cast<int>(node) + 1), run.node_names[node]);
  }
}

TEST(PerfettoTest, SpansNestOnEveryTrack) {
  // Perfetto draws a track's complete events as a stack: two that overlap without nesting would
  // be drawn wrong. The trace packs overlapping spans onto separate tracks, so none overlap, even
  // where one ends exactly where the next starts (ts + dur must not pass the next ts).
  for (const testing::Captured* run :
       {&testing::failing_kleppmann(), &testing::passing_kleppmann()}) {
    std::map<std::pair<int, int>, double> free_at;
    std::size_t spans = 0;
    for (const ordered_json& event : run->trace["traceEvents"]) {
      if (event["ph"] != "X") continue;
      ++spans;
      const auto track = std::make_pair(event["pid"].get<int>(), event["tid"].get<int>());
      const double start = event["ts"].get<double>();
      auto [it, fresh] = free_at.emplace(track, start);
      EXPECT_GE(start, it->second) << event.dump();
      it->second = start + event["dur"].get<double>();
    }
    EXPECT_GE(spans, 5u);  // leases, steps, the stall, the epochs
  }
}

// Where spans of one kind overlap at a node (leases of several trees, faults, steps of parallel
// lanes), the trace packs them onto tracks "NAME #2", "NAME #3", ...: none overlaps another on its
// track, and the packing is used (red team 37a-46 took a free track for a busy one: overlapping
// spans shared a track, and the kleppmann runs above have none to overlap).
TEST(PerfettoTest, OverlappingSpansOfABusyRunArePackedOntoTracksOfTheirOwn) {
  const testing::Captured run = testing::run_and_capture("nightly-mix", 1);
  std::map<std::pair<int, int>, std::string> names = thread_names(run.trace);
  std::map<std::pair<int, int>, double> free_at;
  std::set<std::pair<int, int>> packed;  // the tracks a second span of a family went to
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const auto track = std::make_pair(event["pid"].get<int>(), event["tid"].get<int>());
    if (names[track].find(" #") != std::string::npos) packed.insert(track);
    const double start = event["ts"].get<double>();
    auto [it, fresh] = free_at.emplace(track, start);
    EXPECT_GE(start, it->second) << names[track] << ": " << event.dump();
    it->second = std::max(it->second, start + event["dur"].get<double>());
  }
  EXPECT_FALSE(packed.empty()) << "no span overlapped another of its kind: the test sees nothing";
}

// The packing is as tight as the spans allow: a family's spans at a node take as many tracks as
// the most of them that overlap at one instant, never more. A packer that tried only its newest
// track grew a track at every overlap and never went back: nothing overlapped, so the tests above
// passed, and a busy node's trace had a track per span. (Red team 39a-31, the confirmed parts
// packed in belief order rather than start order, made no extra track in 48 runs: beliefs come
// nearly in start order.)
TEST(PerfettoTest, EachFamilyTakesAsManyTracksAsItsSpansOverlap) {
  const testing::Captured run = testing::run_and_capture("nightly-mix", 1);
  std::map<std::pair<int, int>, std::string> names = thread_names(run.trace);
  // (pid, family) -> its tracks, and its spans as [start, end) in whole nanoseconds, as they were
  // packed (a start and an end of one instant, read back from microseconds, compare equal).
  std::map<std::pair<int, std::string>, std::set<int>> tracks;
  std::map<std::pair<int, std::string>, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const int pid = event["pid"].get<int>();
    const int tid = event["tid"].get<int>();
    std::string family = names[{pid, tid}];
    if (const std::size_t mark = family.find(" #"); mark != std::string::npos) {
      family.resize(mark);
    }
    tracks[{pid, family}].insert(tid);
    const double start = event["ts"].get<double>();
    const double end = start + event["dur"].get<double>();
    spans[{pid, family}].emplace_back(std::llround(start * 1000), std::llround(end * 1000));
  }
  std::size_t families_overlapping = 0;
  for (const auto& [family, of_family] : spans) {
    // The most spans busy at one span's start: itself and every other begun by then and not yet
    // ended (one that ends where it starts is free; an instant's span inside another is busy).
    std::size_t most = 0;
    for (std::size_t i = 0; i < of_family.size(); ++i) {
      std::size_t busy = 1;
      for (std::size_t j = 0; j < of_family.size(); ++j) {
        if (j != i && of_family[j].first <= of_family[i].first &&
            of_family[i].first < of_family[j].second) {
          ++busy;
        }
      }
      most = std::max(most, busy);
    }
    if (most > 1) ++families_overlapping;
    EXPECT_EQ(tracks[family].size(), most) << "process " << family.first << ", " << family.second;
  }
  EXPECT_GT(families_overlapping, 0U) << "no family's spans overlap: the test sees nothing";
}

TEST(PerfettoTest, AWriteInFlightIsDrawnBesideTheStepItOutlives) {
  // In kleppmann-fencing, instance-1's charge step ends at the abort (its lease's local expiry
  // after the stall) while its request is still in flight; the refusal comes back later. The
  // request is a span of its own, from its send to its reply, on a "writes in flight" track of
  // the node, and it ends after the step's span ended.
  const testing::Captured& run = testing::passing_kleppmann();
  std::map<std::pair<int, int>, std::string> thread_names;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      thread_names[{event["pid"].get<int>(), event["tid"].get<int>()}] =
          event["args"]["name"].get<std::string>();
    }
  }
  std::map<std::tuple<int, std::int64_t, std::string>, double> step_end;  // (pid, token, step)
  std::vector<ordered_json> requests;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const double end = event["ts"].get<double>() + event["dur"].get<double>();
    if (event["cat"] == "step") {
      step_end[{event["pid"].get<int>(), event["args"]["token"].get<std::int64_t>(),
                event["name"].get<std::string>().substr(5)}] = end;  // "step NAME"
    }
    if (event["cat"] == "request") requests.push_back(event);
  }
  ASSERT_EQ(requests.size(), 2u);  // one write by each holder
  std::size_t outliving = 0;
  for (const ordered_json& request : requests) {
    const std::string thread = thread_names[{request["pid"].get<int>(), request["tid"].get<int>()}];
    EXPECT_EQ(thread.rfind("writes in flight", 0), 0u) << thread;
    const auto step =
        step_end.find({request["pid"].get<int>(), request["args"]["token"].get<std::int64_t>(),
                       request["args"]["step"].get<std::string>()});
    ASSERT_NE(step, step_end.end()) << request.dump();
    const double end = request["ts"].get<double>() + request["dur"].get<double>();
    if (end > step->second) {
      ++outliving;
      EXPECT_EQ(request["args"]["token"], 1);
      EXPECT_EQ(request["args"]["reply"], "refused");
    }
  }
  EXPECT_EQ(outliving, 1u);
}

// A refused renewal is what a person debugging a stale holder looks for first: the trace names it
// "renew refused", and each renewal of the timeline is drawn once, as what it was (swarm seed 10
// has one: refusals the holder still believed in are rare, 2 runs in 75 of three scenarios). A
// trace that drew a refusal as "renewed" would show a healthy lease where the store said no.
TEST(PerfettoTest, EachRenewalIsDrawnAsRenewedOrRefusedAsItWas) {
  const testing::Captured run = testing::run_and_capture("swarm", 10);
  std::uint64_t refused = 0;
  std::uint64_t renewed = 0;
  for (const ordered_json& belief : run.timeline["beliefs"]) {
    for (const ordered_json& renewal : belief["renewals"]) {
      ++(renewal.contains("refused") ? refused : renewed);
    }
  }
  ASSERT_GT(refused, 0u) << "swarm seed 10 refuses a renewal its holder still believed in";
  ASSERT_GT(renewed, 0u);
  std::uint64_t drawn_refused = 0;
  std::uint64_t drawn_renewed = 0;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] != "i") continue;
    const std::string name = event["name"];
    if (name.starts_with("renew refused ")) ++drawn_refused;
    if (name.starts_with("renewed ")) ++drawn_renewed;
  }
  EXPECT_EQ(drawn_refused, refused);
  EXPECT_EQ(drawn_renewed, renewed);
}

TEST(PerfettoTest, TheViolationAndTheEpochsAreInTheTrace) {
  const testing::Captured& run = testing::failing_kleppmann();
  std::vector<std::int64_t> epochs;
  bool violation = false;
  std::size_t seen = 0;  // one instant per violation, in the timeline's order
  // Each epoch's counter at its grant, in microseconds as every other event (red team 35d-06:
  // the counters' times in nanoseconds, drawn a thousand times later than the grants).
  std::vector<double> granted_us;
  for (const ordered_json& e : run.timeline["epochs"]) {
    granted_us.push_back(e["granted_ns"].get<double>() / 1000.0);
  }
  std::vector<double> counted_us;
  for (const ordered_json& event : run.trace["traceEvents"]) {
    if (event["ph"] == "C") {
      epochs.push_back(event["args"]["epoch"].get<std::int64_t>());
      counted_us.push_back(event["ts"].get<double>());
    }
    if (event["cat"] == "violation") {
      const ordered_json& v = run.timeline["violations"][seen++];
      violation |= event["name"] == "VIOLATION sink-monotonicity";
      EXPECT_EQ(event["name"], "VIOLATION " + v["invariant"].get<std::string>());
      EXPECT_EQ(event["ts"].get<double>(), v["at_ns"].get<double>() / 1000.0);
    }
  }
  EXPECT_TRUE(violation);
  EXPECT_EQ(epochs, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(counted_us, granted_us);
  EXPECT_EQ(run.trace["otherData"]["status"], "violation");
}

// Everything the timeline holds is in the trace, once: each fault (an instant one too: swarm seed
// 10 steps the lease store's clock, a fault that starts and ends at one moment), belief, confirmed
// part, step run, write in flight, epoch, checkpoint, sink write, mark, phase and violation. A
// trace that left out a kind of piece would look complete: nothing in it says what is missing.
TEST(PerfettoTest, EveryPieceOfTheTimelineIsInTheTrace) {
  const testing::Captured swarm = testing::run_and_capture("swarm", 10);
  std::uint64_t instant_faults = 0;
  for (const ordered_json& fault : swarm.timeline["faults"]) {
    instant_faults += fault["end_ns"] == fault["start_ns"];
  }
  ASSERT_GT(instant_faults, 0u) << "swarm seed 10 steps the lease store's clock";
  for (const testing::Captured* run : {&swarm, &testing::failing_kleppmann()}) {
    const ordered_json& t = run->timeline;
    std::map<std::string, std::uint64_t> drawn;
    for (const ordered_json& event : run->trace["traceEvents"]) {
      if (event["ph"] == "M" || event["ph"] == "C") continue;
      const std::string cat = event["cat"];
      const std::string name = event["name"];
      std::string what = cat;
      if (cat == "belief") {
        what = name.starts_with("held ")        ? "held"
               : name.starts_with("confirmed ") ? "confirmed"
               : name.starts_with("take ")      ? "take"
               : name.starts_with("write sent") ? "write sent"
                                                : "renewal";
      }
      if (cat == "truth") {
        what = event["ph"] == "X"                   ? "epoch"
               : name.starts_with("checkpoint ") ? "checkpoint"
                                                 : "sink write";
      }
      ++drawn[what];
    }
    std::uint64_t confirmed = 0;
    std::uint64_t renewals = 0;
    for (const ordered_json& belief : t["beliefs"]) {
      confirmed += belief["confirmed"].size();
      renewals += belief["renewals"].size();
    }
    const std::string which = t["scenario"].get<std::string>();
    EXPECT_EQ(drawn["fault"], t["faults"].size()) << which;
    EXPECT_EQ(drawn["held"], t["beliefs"].size()) << which;
    EXPECT_EQ(drawn["take"], t["beliefs"].size()) << which;
    EXPECT_EQ(drawn["confirmed"], confirmed) << which;
    EXPECT_EQ(drawn["renewal"], renewals) << which;
    EXPECT_EQ(drawn["step"], t["step_runs"].size()) << which;
    EXPECT_EQ(drawn["request"], t["attempts"].size()) << which;
    EXPECT_EQ(drawn["write sent"], t["attempts"].size()) << which;
    EXPECT_EQ(drawn["epoch"], t["epochs"].size()) << which;
    EXPECT_EQ(drawn["checkpoint"], t["checkpoints"].size()) << which;
    EXPECT_EQ(drawn["sink write"], t["writes"].size()) << which;
    EXPECT_EQ(drawn["mark"], t["marks"].size()) << which;
    EXPECT_EQ(drawn["phase"], t["phases"].size()) << which;
    EXPECT_EQ(drawn["violation"], t["violations"].size()) << which;
    // Each kind was there to be drawn: the counts above compare something.
    for (const char* key : {"faults", "beliefs", "step_runs", "epochs", "marks", "phases"}) {
      EXPECT_FALSE(t[key].empty()) << which << " has no " << key;
    }
  }
}

// Each fault of the timeline is drawn from its start to its end, found by its event: a span whose
// end were read from its start would draw every stall, pause and partition as an instant, and the
// counts above would not see it. swarm seed 10 has faults that last and one that does not.
TEST(PerfettoTest, EachFaultIsDrawnFromItsStartToItsEnd) {
  const testing::Captured swarm = testing::run_and_capture("swarm", 10);
  std::map<std::uint64_t, const ordered_json*> spans;  // by the fault's event
  for (const ordered_json& event : swarm.trace["traceEvents"]) {
    if (event["ph"] == "X" && event["cat"] == "fault") {
      spans[event["args"]["event"].get<std::uint64_t>()] = &event;
    }
  }
  std::uint64_t lasting = 0;
  for (const ordered_json& fault : swarm.timeline["faults"]) {
    const auto start = fault["start_ns"].get<std::int64_t>();
    const auto end = fault["end_ns"].get<std::int64_t>();
    lasting += end > start;
    const auto span = spans.find(fault["event"].get<std::uint64_t>());
    ASSERT_NE(span, spans.end()) << fault.dump();
    const ordered_json& drawn = *span->second;
    EXPECT_EQ(drawn["name"], fault["kind"]) << fault.dump();
    EXPECT_NEAR(drawn["ts"].get<double>() * 1000, static_cast<double>(start), 0.5) << fault.dump();
    EXPECT_NEAR(drawn["dur"].get<double>() * 1000, static_cast<double>(end - start), 0.5)
        << fault.dump();
  }
  EXPECT_GT(lasting, 0u) << "swarm seed 10 has faults that last";
}

TEST(PerfettoTest, SameRunGivesTheSameTrace) {
  const testing::Captured a = testing::run_and_capture("nightly-mix", 2);
  const testing::Captured b = testing::run_and_capture("nightly-mix", 2);
  EXPECT_EQ(a.trace.dump(), b.trace.dump());
}

// A violation is drawn on the track of the node of its latest event, at that event's time: a
// violation made of a holder's event and the store's later one (as a belief oracle's is) belongs
// to the store's process, where the timeline draws it. kleppmann-fencing's own violations name
// events of one node (the sink), so the run's report gets one more, naming an event of instance-1
// and a later one of the lease store.
TEST(PerfettoTest, AViolationIsDrawnOnTheNodeOfItsLatestEvent) {
  static const scenarios::ScenarioRegistry registry = scenarios::builtin_scenarios();
  properties::RunRequest request;
  request.scenario = "kleppmann-fencing";
  request.seed = 1;
  ordered_json trace;
  std::uint32_t store = 0;
  std::int64_t latest_ns = 0;
  properties::run_scenario(
      registry, request, [&](const sim::World& world, const properties::RunReport& report) {
        const std::vector<std::string>& names = world.node_names();
        const auto node = [&](const std::string& name) {
          return static_cast<std::uint32_t>(std::find(names.begin(), names.end(), name) -
                                            names.begin());
        };
        store = node("lease-store");
        std::optional<std::uint64_t> holder_event;
        std::optional<std::uint64_t> store_event;
        for (const sim::HistoryEvent& e : world.history().events()) {
          if (!holder_event && e.node == node("instance-1")) holder_event = e.index;
          if (holder_event && e.node == store && e.time_ns > 0) {
            store_event = e.index;
            latest_ns = e.time_ns;
          }
        }
        ASSERT_TRUE(holder_event && store_event);
        properties::RunReport with = report;
        with.violations.push_back(
            properties::Violation{"made-up", "a holder's event, then the store's", {*holder_event, *store_event}});
        trace = perfetto_trace(world, with);
      });
  std::size_t drawn = 0;
  for (const ordered_json& event : trace["traceEvents"]) {
    if (event["cat"] != "violation" || event["name"] != "VIOLATION made-up") continue;
    ++drawn;
    EXPECT_EQ(event["pid"], store + 1) << event.dump();
    EXPECT_DOUBLE_EQ(event["ts"].get<double>(), static_cast<double>(latest_ns) / 1000.0);
  }
  EXPECT_EQ(drawn, 1u);
}

}  // namespace
}  // namespace fencesim::reports::perfetto_test
