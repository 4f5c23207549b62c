#pragma once
// The [[fault]] tables of a spec: fault generators. Each draws zero or more faults per run from
// the run's "spec-faults" stream: whether it fires at all (chance), how many (count), on which
// node (a name, one drawn from a group, or every node of a group), when (a time or a protocol
// trigger) and how much (duration, amount, probability), each from a range.
#include <cstdint>
#include <optional>
#include <string>

#include "scenarios/spec_values.h"
#include "sim/world.h"

namespace fencesim::scenarios::spec {

// Which node(s) a fault hits: "instance-1", "any-instance" (one, drawn), "every-instance" (one
// fault each). Groups: instance, sink, store (the lease store and the sinks), node (all of them).
struct NodePick {
  enum class Mode { kNamed, kAny, kEvery };
  Mode mode = Mode::kNamed;
  std::string name;  // kNamed: the node; otherwise the group
  std::string text;  // as written, for messages
  std::uint32_t line = 0;
};

struct FaultGenerator {
  std::uint32_t line = 0;  // of the [[fault]] header
  sim::FaultKind kind = sim::FaultKind::kStall;
  NodePick node;
  std::optional<NodePick> peer;  // partition only
  std::optional<Range> at;       // when, unless `after` is set
  std::uint32_t at_line = 0;
  std::optional<runtime::EventKind> after;  // a protocol trigger
  Range occurrence{1, 1};
  Range delay{0, 0};
  std::string after_node;  // "" for the fault's own node
  // Aimed at a deadline the event sets (sim::Aim): `delay` is then signed, from the deadline.
  std::optional<sim::Aim> aim;
  ProbabilityRange within{0.1, 0.9};  // aim "in-flight": where in the message's flight
  std::optional<sim::Aim> until;      // lasts until this deadline + until_delay, not `lasting`
  Range until_delay{0, 0};
  std::uint32_t after_node_line = 0;
  Range lasting{0, 0};
  Range amount{0, 0};
  ProbabilityRange probability{0, 0};
  double chance = 1;
  Range count{1, 1};
};

// Reads one [[fault]] table and checks everything that does not depend on the workload's nodes.
FaultGenerator read_fault(const SpecReader& reader, const toml::table& table);

// Checks the generator against a world built by the workload: its nodes exist and have the right
// kind, and its times fall inside the safety phase.
void check_fault(const SpecReader& reader, const FaultGenerator& generator,
                 const sim::World& world);

// The generator in words with its ranges, as check-spec prints it: "stall on every-instance, at
// 10s..20s, lasting 31s..45s, count 1 (line 7)".
std::string describe(const FaultGenerator& generator);

// Appends what the generator draws from `rng` to `plan`. The number of draws depends only on the
// spec (and the count drawn), so an edit to one generator's values keeps the others' draws.
void draw_faults(const FaultGenerator& generator, const sim::World& world, sim::Rng& rng,
                 sim::FaultPlan& plan);

}  // namespace fencesim::scenarios::spec
