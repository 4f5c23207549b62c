#pragma once
// The numbers of a fault the shrinker moves toward simpler values, and the key by which it knows a
// plan it already ran (properties/shrink.cpp). A field whose get or set misses its number shrinks
// nothing, or keeps a plan that is not the one that ran; a key that leaves a number out takes a new
// candidate for one already tried, and that number never shrinks. Each stays quiet in every sweep,
// so they have tests of their own (properties/tests/shrink_fields_test.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/fault.h"

namespace fencesim::properties::shrink {

// One number of a fault that can move toward a simpler value. Values are searched on a grid of
// `unit` above `lower` (whole milliseconds for times, whole percents for probabilities), so that a
// shrunk plan reads as round numbers.
struct Field {
  std::string name;
  std::int64_t lower = 0;
  std::int64_t unit = 1;
  std::function<std::int64_t(const sim::Fault&)> get;
  std::function<void(sim::Fault&, std::int64_t)> set;
  std::function<std::string(std::int64_t)> show;
};

// The numbers of `fault` worth shrinking, in the order they are tried.
std::vector<Field> fields_of(const sim::Fault& fault);

// Everything a run depends on in a plan, as text: the cache key of a candidate.
std::string plan_key(const sim::FaultPlan& plan);

}  // namespace fencesim::properties::shrink
