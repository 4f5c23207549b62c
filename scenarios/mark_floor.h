#pragma once
// A declared mark is an assertion, not a statistic: a scenario names the dangerous moments a sweep
// of it must reach, each with a floor. A sweep that ran the scenario often enough for the floor to
// mean something and stayed under it did not test what the scenario is about, and fails
// (reports/claims.h), as an Antithesis "sometimes" assertion fails a test that never satisfied it.
//
// Written "stale-write-refused" (reached at all) or "takeover-mid-step >= 2%" (in at least 2% of
// the scenario's runs), in C++ (ScenarioBuilder::marks) and in specs alike.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fencesim::scenarios {

// Runs a "reached at all" floor waits for before it is judged (and the fewest any floor waits
// for): a mark that fewer than about one run in seven reaches should declare its rate instead
// (3 / rate runs are then waited for).
inline constexpr std::uint64_t kReachedAtAllRuns = 20;
// The runs a floor above 80% waits for. The catalogue floors its stories' marks at 95% where 2,000
// seeds all reached them; the lower 99.95% bound of that share is one run in 260 missing, and
// over 20 runs two such misses (under 95%) come once in about 370 sweeps; over 100 runs, six
// misses (under 95%) come once in about 350,000.
inline constexpr std::uint64_t kHighFloorRuns = 100;

struct MarkFloor {
  std::string name;
  // The least share of the scenario's runs that must reach the mark, in (0, 1]; 0: at least one.
  double rate = 0;

  MarkFloor() = default;
  // "name" or "name >= R%"; throws std::invalid_argument with one line saying what is wrong.
  MarkFloor(const char* text);         // NOLINT(google-explicit-constructor): reads like the text
  MarkFloor(const std::string& text);  // NOLINT(google-explicit-constructor)
  MarkFloor(std::string mark, double least_rate);

  // Runs of the scenario before the floor is judged: below them it is "not enough runs".
  std::uint64_t runs_needed() const;
  // Whether `reached` of `runs` meets the floor (runs >= runs_needed() is checked apart).
  bool met_by(std::uint64_t reached, std::uint64_t runs) const;
  // The floor as written: "takeover-mid-step >= 2%" or "stale-write-refused".
  std::string text() const;
  // The floor alone: "2%" or "reached at all".
  std::string floor_text() const;

  friend bool operator==(const MarkFloor&, const MarkFloor&) = default;
};

// The names of `floors`, in order (what a mark detector watches).
std::vector<std::string> mark_names(const std::vector<MarkFloor>& floors);

// Parses "name" or "name >= R%" (R a decimal in (0, 100]); throws std::invalid_argument.
MarkFloor parse_mark_floor(std::string_view text);

}  // namespace fencesim::scenarios
