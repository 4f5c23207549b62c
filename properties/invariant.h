#pragma once
// Invariants over a run's history. Each has a name, a one-line statement, and a checker that reads
// the history and points at the events that break it. Checkers observe; they never poll the world.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world.h"

namespace fencesim::properties {

struct Violation {
  std::string invariant;
  std::string message;
  std::vector<std::uint64_t> events;  // history indices of the events that break it
};

class Invariant {
 public:
  virtual ~Invariant() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view statement() const = 0;
  // Appends what it finds wrong in the finished run of `world`.
  virtual void check(const sim::World& world, std::vector<Violation>& out) const = 0;
};

// The invariants checked on every run.
std::vector<std::unique_ptr<Invariant>> default_invariants();

}  // namespace fencesim::properties
