#pragma once
// A spec's own topology (docs/specs.md): instances, sinks, workflows composed from the step kinds
// below, and trees over those workflows or the registered ones, so that a story needs no C++.
//
//   [[instance]]            name, start (default "0s")
//   [[sink]]                name
//   [[workflow]]            name, steps = [ {kind = "work", name = "reserve", duration = "1s"},
//                                           {kind = "write", name = "charge", sink = "payments"},
//                                           {kind = "group", name = "children", children = [
//                                              {name = "a", placement = "any-instance",
//                                               workflow = "leaf"}]} ]
//   [[tree]]                tenant, execution, workflow, at (default "0s"), cancel (a client's
//                           cancel, a duration or range after `at`, drawn per run; default none)
//
// Step kinds: work (duration), write (duration, sink, effect = name, payload = name), busy-write
// (duration, sink, other_sink: keeps working after its write), confirm-call (duration of a call to
// a system that cannot check tokens, after confirmNow), group (children with placement
// parent-instance, this-workflow or any-instance). Registered workflows: "order" (reserve, a write
// to "payments", ship).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/workflow.h"
#include "scenarios/spec_values.h"
#include "sim/world.h"

namespace fencesim::scenarios::spec {

struct StepSpec {
  std::string kind;  // work, write, busy-write, confirm-call
  std::string name;
  std::int64_t duration_ns = 0;
  std::string sink;
  std::string other_sink;
  std::string effect;
  std::string payload;
};

struct ChildSpec {
  std::string name;
  runtime::ChildPlacement placement = runtime::ChildPlacement::kParentInstance;
  std::string workflow;
};

struct ItemSpec {
  bool group = false;
  StepSpec step;                    // !group
  std::string group_name;           // group
  std::vector<ChildSpec> children;  // group
};

struct WorkflowSpec {
  std::string name;
  std::vector<ItemSpec> items;
};

struct TreeSpec {
  std::string tenant;
  std::string execution;
  std::string workflow;
  std::int64_t at_ns = 0;
  // When a client cancels the tree (#360), counted from at_ns: drawn per run in [low, high].
  std::optional<Range> cancel;
};

struct Topology {
  std::vector<std::pair<std::string, std::int64_t>> instances;  // name, start
  std::vector<std::string> sinks;
  std::vector<WorkflowSpec> workflows;
  std::vector<TreeSpec> trees;
};

// Whether the document declares a topology (any of instance, sink, workflow, tree).
bool has_topology(const toml::table& document);

// Reads and checks the topology: names unique, sinks and workflows that steps and trees name
// exist, no workflow that contains itself, at least one instance and one tree.
Topology read_topology(const SpecReader& reader, const toml::table& document);

// Adds the lease store, the sinks, the instances, the workflows and the trees to `world`.
void build_topology(const Topology& topology, sim::World& world);

}  // namespace fencesim::scenarios::spec
