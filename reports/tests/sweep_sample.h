#pragma once
// A sweep summary in the shape `fencesim sweep` writes (format "fencesim-sweep-summary",
// version 1), for the report tests: one scenario with a mark never reached, and one failure (in
// its group, new against a --known folder) or none.
#include <nlohmann/json.hpp>

namespace fencesim::reports::testing {

inline constexpr const char* kSampleSignature =
    "sink-monotonicity: sink-accepted(sink)";

inline nlohmann::ordered_json sweep_summary_sample(bool with_failure) {
  using nlohmann::ordered_json;
  ordered_json failures = ordered_json::array();
  if (with_failure) {
    failures.push_back(
        {{"scenario", "kleppmann-fencing"},
         {"strategy", "random"},
         {"seed", 1},
         {"status", "violation"},
         {"invariant", "sink-monotonicity"},
         {"message", "sink 'payments' accepted token 1 for scope tenant-1:order-1 after token 2"},
         {"replay_command", "fencesim replay failures/kleppmann-fencing-random-1.json"},
         {"replay_file", "failures/kleppmann-fencing-random-1.json"},
         {"shrunk_replay_file", "failures/kleppmann-fencing-random-1.shrunk.json"},
         {"shrunk_faults", 1},
         {"original_faults", 1},
         {"html", "failures/kleppmann-fencing-random-1.html"}});
  }
  ordered_json groups = ordered_json::array();
  if (with_failure) {
    failures[0]["signature"] = kSampleSignature;
    failures[0]["group"] = "4b1d9a2c";
    groups.push_back(
        {{"id", "4b1d9a2c"},
         {"signature", kSampleSignature},
         {"status", "violation"},
         {"kind", "sink-monotonicity"},
         {"known", false},
         {"count", 1},
         {"scenarios", {"kleppmann-fencing"}},
         {"strategies", {"random"}},
         {"first", {{"scenario", "kleppmann-fencing"}, {"strategy", "random"}, {"seed", 1}}},
         {"example",
          {{"scenario", "kleppmann-fencing"},
           {"strategy", "random"},
           {"seed", 1},
           {"message", "sink 'payments' accepted token 1 for scope tenant-1:order-1 after token 2"},
           {"shrunk", true},
           {"faults", 1},
           {"original_faults", 1},
           {"replay_command", "fencesim replay failures/kleppmann-fencing-random-1.shrunk.json"},
           {"replay_file", "failures/kleppmann-fencing-random-1.shrunk.json"},
           {"html", "failures/kleppmann-fencing-random-1.html"},
           {"timeline_file", "failures/kleppmann-fencing-random-1.timeline.json"}}},
         {"failures", {0}}});
  }
  const std::uint64_t failed = with_failure ? 1 : 0;
  return ordered_json{
      {"format", "fencesim-sweep-summary"},
      {"version", 1},
      {"fencesim_version", "0.1.0"},
      {"known", ordered_json{{"sources", {"last-night"}}, {"signatures", 3}}},
      {"groups", groups},
      {"configuration", {{"seeds", "1..20"}, {"strategy", "random"}, {"jobs", 2}}},
      {"totals",
       {{"runs", 20},
        {"passed", 20 - failed},
        {"failed", failed},
        {"nondeterministic", 0},
        {"harness_errors", 0},
        {"groups", failed},
        {"new_groups", failed},
        {"wall_seconds", 1.5},
        {"virtual_seconds", 1800.0},
        {"seeds_per_second", 13.3}}},
      {"scenarios",
       ordered_json::array(
           {{{"name", "kleppmann-fencing"},
             {"description", "holder 1 stalls past its lease with a write in flight"},
             {"runs", 20},
             {"failures", failed},
             {"nondeterministic", 0},
             {"determinism_reruns", 2},
             {"marks", {{"stale-write-refused", 19}}},
             {"marks_never_reached", ordered_json::array({"takeover-mid-step"})},
             {"figures",
              {{"unfenced-overlap-ns", {{"runs_measured", 3}, {"total", 12}, {"max", 9}}}}},
             {"seeds_per_second", 13.3},
             {"virtual_per_wall", 1200.0}}})},
      {"failures", failures}};
}

}  // namespace fencesim::reports::testing
