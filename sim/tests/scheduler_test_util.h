#pragma once
// Helpers shared by the scheduler tests.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/scheduler.h"

namespace fencesim::sim::testing {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kSec = 1'000'000'000;

// Sets a flag when destroyed: proves that a killed fiber's stack was unwound.
class SetOnDestroy {
 public:
  explicit SetOnDestroy(bool& flag) : flag_(flag) {}
  ~SetOnDestroy() { flag_ = true; }
  SetOnDestroy(const SetOnDestroy&) = delete;
  SetOnDestroy& operator=(const SetOnDestroy&) = delete;

 private:
  bool& flag_;
};

// (fiber name, virtual time) after every step of every fiber.
using Trace = std::vector<std::pair<std::string, std::int64_t>>;

// Ten fibers on three nodes doing random yields and sleeps (each from its own stream), plus a few
// timers that spawn and wake: the interleaving is a function of the seed only.
Trace interleaving(std::uint64_t seed, Strategy strategy);

}  // namespace fencesim::sim::testing
