#pragma once
// A sweep stopped by SIGINT or SIGTERM before its plan was run (a Ctrl-C, a CI cancel, a pod
// preempted): its reports are written from what ran, and sweep.json says so, with the seeds that
// were not run, so that `fencesim sweep --resume OUT` can continue it and `fencesim merge` can say
// what a shard lacks.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fencesim::reports {

class JsonReader;

// Seeds first, first + every, ... up to last (a shard's seeds are the shard count apart); no last:
// every such seed from first on (a budget sweep's seeds never begun).
struct SeedSpan {
  std::uint64_t first = 0;
  std::optional<std::uint64_t> last;
  std::uint64_t every = 1;
  friend bool operator==(const SeedSpan&, const SeedSpan&) = default;
};

struct Interruption {
  std::string signal;                   // "SIGINT" or "SIGTERM"
  std::vector<SeedSpan> seeds_not_run;  // seeds with at least one run not made, ascending
  // A budget sweep: what was left of its budget when it stopped (a resume spends that much).
  std::optional<std::uint64_t> budget_left_ms;
  friend bool operator==(const Interruption&, const Interruption&) = default;
};

// "SIGINT", "SIGTERM", or "signal N".
std::string signal_name(int signal);

// "4, 7..9, 12..", a span of every Nth seed as "2..98 every 4"; "none".
std::string describe_seed_spans(const std::vector<SeedSpan>& spans);

// Ascending seeds made into spans of every `step`-th seed: seeds `step` apart join one span.
std::vector<SeedSpan> seed_spans(const std::vector<std::uint64_t>& seeds, std::uint64_t step);

nlohmann::ordered_json to_json(const Interruption& interruption);
// Throws SweepFileError through `reader`.
Interruption interruption_from_json(const JsonReader& reader, const nlohmann::json& object);

}  // namespace fencesim::reports
