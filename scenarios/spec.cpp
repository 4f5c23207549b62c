#include "scenarios/spec.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/check.h"
#include "scenarios/spec_faults.h"
#include "scenarios/spec_options.h"
#include "scenarios/spec_topology.h"
#include "scenarios/spec_values.h"
#include "sim/node_kind.h"

namespace fencesim::scenarios {

std::optional<runtime::EventKind> event_kind_from_name(std::string_view name) {
  constexpr auto kLast = static_cast<int>(runtime::kLastEventKind);
  for (int value = 0; value <= kLast; ++value) {
    const auto kind = static_cast<runtime::EventKind>(value);
    if (runtime::to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

namespace {

using spec::SpecReader;

// A name goes into file names (replay files) and command lines: keep it plain.
bool plain_name(const std::string& name) {
  return !name.empty() &&
         name.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string::npos;
}

toml::table parse(const std::string& text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    std::string what(error.description());
    for (char& c : what) c = c == '\n' ? ' ' : c;
    throw SpecError(fmt::format("{}:{}: {}", source, error.source().begin.line, what));
  }
}

// Each element "name" (reached at all) or "name >= 2%" (scenarios/mark_floor.h).
std::vector<MarkFloor> read_marks(const SpecReader& reader, const toml::node& node) {
  const auto* array = node.as_array();
  if (array == nullptr) {
    reader.fail(node, "marks", "must be an array of marks: \"name\" or \"name >= 2%\"");
  }
  std::vector<MarkFloor> marks;
  for (const toml::node& element : *array) {
    reader.attempt([&] {
      const std::string text = reader.string(element, "marks");
      try {
        marks.push_back(parse_mark_floor(text));
      } catch (const std::invalid_argument& error) {
        reader.fail(element, "marks", error.what());
      }
    });
  }
  return marks;
}

std::vector<spec::FaultGenerator> read_faults(const SpecReader& reader, const toml::node& node) {
  const auto* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.fail(node, "fault", "must be an array of tables: write each fault as [[fault]]");
  }
  std::vector<spec::FaultGenerator> faults;
  for (const toml::node& element : *array) {
    // A fault with errors of its own is left out: the others are still checked.
    const std::size_t before = reader.error_count();
    reader.attempt([&] {
      spec::FaultGenerator fault = spec::read_fault(reader, *element.as_table());
      if (reader.error_count() == before) faults.push_back(std::move(fault));
    });
  }
  return faults;
}

// Builds the workload's world once without running it: the nodes a spec's faults name must exist,
// and its options must make sense together.
void check_against_workload(const SpecReader& reader, const Scenario& workload,
                            const spec::Options& options,
                            const std::vector<spec::FaultGenerator>& faults, SpecOutline* outline) {
  sim::WorldOptions world_options;
  if (workload.configure) workload.configure(world_options);
  spec::apply_options(options, world_options);
  spec::check_options(reader, options, world_options);
  sim::World world(world_options);
  try {
    workload.build(world);  // the workload's alone: the spec's faults are drawn once they check
  } catch (const CheckFailure& failure) {
    // A workload states what it needs of the options as checks (a safety phase long enough for
    // its arrivals): a spec that does not give it is refused in one line, never run.
    reader.fail(1, "options",
                fmt::format("workload '{}' cannot run with these options: {}", workload.name,
                            failure.what()));
  }
  for (const spec::FaultGenerator& fault : faults) {
    reader.attempt([&] { spec::check_fault(reader, fault, world); });
  }
  if (outline == nullptr) return;
  const std::vector<std::string>& names = world.node_names();
  for (std::size_t i = 1; i < names.size(); ++i) {
    outline->nodes.push_back(fmt::format(
        "{} ({})", names[i], sim::kind_word(world.node_kind(static_cast<sim::NodeId>(i)))));
  }
  outline->safety_phase_ns = world.options().safety_phase_ns;
  outline->liveness_budget_ns = world.options().liveness_budget_ns;
}

}  // namespace

std::string register_spec_text(ScenarioRegistry& registry, const std::string& text,
                               const std::string& source, SpecOutline* outline) {
  const SpecReader reader(source);
  const toml::table document = parse(text, source);
  // Checked whole: every part is read even after an error in another, and all errors are thrown
  // together at the end (SpecError::all); nothing is registered unless there are none.
  reader.only_keys(document, "",
                   {"name", "description", "workload", "workload_faults", "marks", "options",
                    "fault", "instance", "sink", "workflow", "tree"});
  std::string name;
  bool same_spec_again = false;
  reader.attempt([&] {
    const toml::node* name_node = document.get("name");
    if (name_node == nullptr)
      reader.fail(1, "name", "missing (the scenario name the spec registers)");
    name = reader.string(*name_node, "name");
    if (!plain_name(name)) {
      reader.fail(*name_node, "name",
                  fmt::format("'{}' may hold only letters, digits, '.', '_' and '-'", name));
    }
    if (const Scenario* taken = registry.find(name)) {
      same_spec_again = taken->spec_toml == text;
      if (!same_spec_again) {
        reader.fail(*name_node, "name",
                    fmt::format("a scenario named '{}' is already registered", name));
      }
    }
  });
  if (same_spec_again && outline == nullptr) return name;  // the same spec twice: nothing to do
  const toml::node* workload_node = document.get("workload");
  // A spec runs a registered workload, or declares its own topology (spec_topology.h).
  Scenario own;
  const Scenario* base = nullptr;
  std::string workload;
  reader.attempt([&] {
    if (spec::has_topology(document)) {
      if (workload_node != nullptr) {
        reader.note(workload_node->source().begin.line, "workload",
                    "a spec runs a workload or declares its own topology ([[instance]], [[sink]], "
                    "[[workflow]], [[tree]]), not both");
      }
      const std::size_t before = reader.error_count();
      const spec::Topology topology = spec::read_topology(reader, document);
      workload = "its own topology";
      own.build = [topology](sim::World& world) { spec::build_topology(topology, world); };
      if (reader.error_count() == before) base = &own;
      return;
    }
    if (workload_node == nullptr) {
      reader.fail(1, "workload",
                  "missing (the registered scenario the spec runs, or a topology of its own)");
    }
    workload = reader.string(*workload_node, "workload");
    base = registry.find(workload);
    if (base == nullptr) {
      reader.fail(*workload_node, "workload",
                  fmt::format("unknown scenario '{}' (try 'fencesim list')", workload));
    }
  });
  bool keep_workload_faults = true;
  if (const toml::node* node = document.get("workload_faults")) {
    reader.attempt([&] {
      const std::string mode = reader.string(*node, "workload_faults");
      if (mode != "keep" && mode != "drop") {
        reader.fail(*node, "workload_faults", fmt::format("'{}' is not keep or drop", mode));
      }
      keep_workload_faults = mode == "keep";
    });
  }
  spec::Options options;
  bool options_read = true;
  if (const toml::node* node = document.get("options")) {
    const std::size_t before = reader.error_count();
    options_read = reader.attempt([&] { options = spec::read_options(reader, *node); }) &&
                   reader.error_count() == before;
  }
  std::vector<spec::FaultGenerator> faults;
  if (const toml::node* node = document.get("fault")) {
    reader.attempt([&] { faults = read_faults(reader, *node); });
  }
  Scenario scenario;
  scenario.name = name;
  scenario.description = fmt::format("spec {} over {}", source, workload);
  if (const toml::node* node = document.get("description")) {
    reader.attempt([&] { scenario.description = reader.string(*node, "description"); });
  }
  if (base != nullptr) scenario.marks = base->marks;
  if (const toml::node* node = document.get("marks")) {
    reader.attempt([&] { scenario.marks = read_marks(reader, *node); });
  }
  // The workload's world is built only from parts that read: an error already reported is not
  // reported again as what it breaks downstream.
  if (base != nullptr && options_read) {
    reader.attempt([&] { check_against_workload(reader, *base, options, faults, outline); });
  }
  reader.throw_if_any();
  if (outline != nullptr) {
    outline->name = name;
    outline->workload = workload;
    outline->description = scenario.description;
    outline->marks = scenario.marks;
    outline->workload_faults = keep_workload_faults ? "keep" : "drop";
    for (const spec::FaultGenerator& fault : faults) {
      outline->faults.push_back(spec::describe(fault));
    }
  }
  if (same_spec_again) return name;
  scenario.spec_toml = text;
  scenario.configure = [configure = base->configure, options](sim::WorldOptions& world_options) {
    if (configure) configure(world_options);
    spec::apply_options(options, world_options);
  };
  scenario.build = [build = base->build, keep_workload_faults, faults](sim::World& world) {
    build(world);
    sim::FaultPlan plan = keep_workload_faults ? world.fault_plan() : sim::FaultPlan{};
    // Its own stream: the workload's draws ("workload", "faults") stay what they were.
    sim::Rng rng = world.stream("spec-faults");
    for (const spec::FaultGenerator& fault : faults) spec::draw_faults(fault, world, rng, plan);
    world.set_fault_plan(std::move(plan));
  };
  registry.add(std::move(scenario));
  return name;
}

std::string register_spec_file(ScenarioRegistry& registry, const std::string& path,
                               SpecOutline* outline) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw SpecError(
        fmt::format("spec file '{}' {}", path,
                    std::filesystem::exists(path, error) ? "is not a file" : "not found"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw SpecError(fmt::format("spec file '{}' cannot be read", path));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SpecError(fmt::format("spec file '{}' cannot be read", path));
  return register_spec_text(registry, text.str(), path, outline);
}

}  // namespace fencesim::scenarios
