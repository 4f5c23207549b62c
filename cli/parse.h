#pragma once
// Parsing of the command line's values, with errors a user can act on. Every error is a UsageError
// whose message is one line naming the option and the value (the CLI exits 2 with it).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "properties/run.h"
#include "sim/scheduler.h"

namespace fencesim::cli {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A decimal unsigned 64-bit integer: digits only, no sign, no spaces.
std::uint64_t parse_seed(std::string_view option, std::string_view text);

struct SeedRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;  // inclusive
};
// "A..B" with A <= B (both inclusive), or a single seed "A".
SeedRange parse_seed_range(std::string_view option, std::string_view text);

// "random" or "pct".
sim::Strategy parse_strategy(std::string_view option, std::string_view text);
// Sets the request's strategy and PCT change points from a name: random, pct, pct-dN, or "drawn"
// (the strategy a sweep draws from the seed: set request.seed first). Throws UsageError.
void set_strategy(std::string_view option, std::string_view text, properties::RunRequest& request);

}  // namespace fencesim::cli
