#pragma once
// The rules that say when a run reaches a "sometimes" mark (properties/marks.h), one small class
// a rule, each keeping only the state its own marks need, so that a detector watching a few marks
// (a sweep branching at them, cli/sweep_branch.h) runs only their rules as the history grows.
// This is the one copy of every rule: counting, placing on a timeline and branching all use it.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/world.h"

namespace fencesim::properties {

class MarkRule {
 public:
  using Reach = std::function<void(std::string_view mark)>;
  virtual ~MarkRule() = default;
  // The marks this rule can reach; empty for the rule of a workload's own marks (any name).
  virtual std::vector<std::string_view> names() const = 0;
  // Reads the next event of the history; calls `reach` for each mark it reaches there.
  virtual void observe(const sim::HistoryEvent& e, const Reach& reach) = 0;
};

// Every rule, in the order their marks are reported at one event.
std::vector<std::unique_ptr<MarkRule>> make_mark_rules(const sim::World& world);
// Every name the rules can reach (a workload's own marks aside), sorted.
std::vector<std::string> mark_rule_names();

}  // namespace fencesim::properties
