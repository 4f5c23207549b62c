#pragma once
// Assertions that stay on in every build. A failed check is a bug in fencesim or in the runtime
// under test, never bad input: it throws CheckFailure so that a simulated world reports it with its
// seed instead of aborting the harness (an abort inside a fiber would lose the seed).
#include <source_location>
#include <stdexcept>
#include <string>

namespace fencesim {

class CheckFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void check_failed(const char* what, std::source_location where);

// check(cond, "what must hold"): one condition per call; split compound conditions so that a
// failure names the part that broke.
inline void check(bool condition, const char* what,
                  std::source_location where = std::source_location::current()) {
  if (!condition) check_failed(what, where);
}

}  // namespace fencesim
