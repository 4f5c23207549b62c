#pragma once
// A scenario is a named fault story: the topology, the workload, the fault plan (hand-written or
// drawn from the seed), and the "sometimes" marks a run of it should reach. It configures a World;
// it never touches sim/'s internals.
#include <cstdint>
#include <functional>
#include <map>
#include <source_location>
#include <string>
#include <vector>

#include "scenarios/mark_floor.h"
#include "sim/world.h"

namespace fencesim::scenarios {

struct Scenario {
  std::string name;
  std::string description;  // one line, for `fencesim list`
  // Adjusts the world's options before the world is made (lease, phases, network).
  std::function<void(sim::WorldOptions&)> configure;
  // Adds nodes, workflows, trees and the fault plan. The plan may be drawn from world.stream().
  std::function<void(sim::World&)> build;
  // The dangerous moments a sweep of this scenario must reach, each with its floor
  // (scenarios/mark_floor.h): a sweep that stays under a floor fails. Floors of the built-in
  // scenarios are set from measured rates with a margin (docs/writing-a-scenario.md).
  std::vector<MarkFloor> marks;
  // The TOML text of a scenario registered at run time from a spec (scenarios/spec.h), so that a
  // replay file can carry it; "" for a scenario written in C++.
  std::string spec_toml;
};

class ScenarioRegistry {
 public:
  // Throws std::invalid_argument if the name is taken. Scenarios may be added at any time (specs
  // are registered at run time); pointers from find() and all() stay valid.
  void add(Scenario scenario);
  // Null for an unknown name.
  const Scenario* find(const std::string& name) const;
  // In name order.
  std::vector<const Scenario*> all() const;

 private:
  std::map<std::string, Scenario> scenarios_;
};

// The scenarios that ship with fencesim: every ScenarioRegistration linked in.
ScenarioRegistry builtin_scenarios();

// A C++ scenario is one file in scenarios/: it registers its scenarios with one object at namespace
// scope, and nothing else is edited (scenarios/CMakeLists.txt links every object of the folder,
// so that a file nothing refers to is not dropped by the linker), named after the file (the
// folder is compiled in unity batches, where names at namespace scope must differ):
//   const ScenarioRegistration kMyStoryRegistration(register_my_story);
class ScenarioRegistration {
 public:
  using Function = void (*)(ScenarioRegistry&);
  struct Entry {
    Function function;
    std::string file;  // the registering file's name, without its folder
    std::uint_least32_t line;
  };
  explicit ScenarioRegistration(Function function,
                                std::source_location where = std::source_location::current());
  // Every registration linked in, ordered by file and line (static initialization across files
  // has no order of its own).
  static std::vector<Entry> all();
};

// Test only: planted_bugs.cpp registers nothing unless FENCESIM_TEST_PLANTED_BUGS=1.

}  // namespace fencesim::scenarios
