#pragma once
// The rules that say when a run reaches a "sometimes" mark (properties/marks.h), one small class
// a rule, each keeping only the state its own marks need, so that a detector watching a few marks
// (a sweep branching at them, cli/sweep_branch.h) runs only their rules as the history grows.
// This is the one copy of every rule: counting, placing on a timeline and branching all use it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world.h"

namespace fencesim::properties {

// A set of history event kinds, a bit per sim::WorldEventKind.
using EventKinds = std::uint32_t;
constexpr EventKinds kind_bit(sim::WorldEventKind kind) {
  return EventKinds{1} << static_cast<unsigned>(kind);
}
constexpr EventKinds kAllEventKinds = (kind_bit(sim::kLastWorldEventKind) << 1) - 1;
static_assert(static_cast<unsigned>(sim::kLastWorldEventKind) < 32, "EventKinds has a bit a kind");

class MarkRule {
 public:
  using Reach = std::function<void(std::string_view mark)>;
  virtual ~MarkRule() = default;
  // The marks this rule can reach; empty for the rule of a workload's own marks (any name).
  virtual std::vector<std::string_view> names() const = 0;
  // The kinds of event the rule reads: a detector hands it no other (a rule reads two or three of
  // the sixteen kinds, and the marks' walk called every rule at every event). A rule that
  // declares too few misses events: MarksTest.EachRuleIsHandedEveryEventItReads feeds every rule
  // every event and compares.
  virtual EventKinds reads() const { return kAllEventKinds; }
  // Reads the next event of the history; calls `reach` for each mark it reaches there.
  virtual void observe(const sim::HistoryEvent& e, const Reach& reach) = 0;
};

// Every rule, in the order their marks are reported at one event.
std::vector<std::unique_ptr<MarkRule>> make_mark_rules(const sim::World& world);
// Every name the rules can reach (a workload's own marks aside), sorted.
std::vector<std::string> mark_rule_names();

}  // namespace fencesim::properties
