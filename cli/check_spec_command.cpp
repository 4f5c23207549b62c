// `fencesim check-spec FILE...`: a spec checked without running it. Every error of each file is
// printed, one line apiece (file:line: key: why), and the command exits 2; a spec without errors
// is outlined: what it composes (nodes, workflows' workload, faults with their ranges, marks).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli/commands.h"
#include "scenarios/spec.h"
#include "scenarios/spec_durations.h"

namespace fencesim::cli {

namespace {

void print_outline(const scenarios::SpecOutline& outline, const std::string& path,
                   std::ostream& out) {
  fmt::print(out, "{}: ok: scenario '{}' over {}\n", path, outline.name, outline.workload);
  fmt::print(out, "  description: {}\n", outline.description);
  fmt::print(out, "  nodes: {}\n", fmt::join(outline.nodes, ", "));
  fmt::print(out, "  phases: safety {}, liveness budget {}\n",
             scenarios::spec::format_duration(outline.safety_phase_ns),
             scenarios::spec::format_duration(outline.liveness_budget_ns));
  fmt::print(out, "  workload faults: {}\n", outline.workload_faults);
  if (outline.faults.empty()) fmt::print(out, "  faults: none of its own\n");
  for (const std::string& fault : outline.faults) fmt::print(out, "  fault: {}\n", fault);
  if (outline.marks.empty()) fmt::print(out, "  declared marks: none\n");
  for (const scenarios::MarkFloor& mark : outline.marks) {
    fmt::print(out, "  declared mark: {} (needs {} runs to be judged)\n", mark.text(),
               mark.runs_needed());
  }
}

}  // namespace

int check_spec_command(const scenarios::ScenarioRegistry& builtin, const CheckSpecArgs& args,
                       std::ostream& out, std::ostream& err) {
  int errors = 0;
  for (const std::string& path : args.files) {
    // Each file alone against the built-in scenarios: one spec's name never clashes with another's.
    scenarios::ScenarioRegistry registry = builtin;
    scenarios::SpecOutline outline;
    try {
      scenarios::register_spec_file(registry, path, &outline);
    } catch (const scenarios::SpecError& error) {
      const std::vector<std::string> all = error.all();
      for (const std::string& line : all) fmt::print(err, "{}\n", line);
      fmt::print(out, "{}: {} error{}\n", path, all.size(), all.size() == 1 ? "" : "s");
      errors += static_cast<int>(all.size());
      continue;
    }
    print_outline(outline, path, out);
  }
  return errors == 0 ? 0 : kExitUsage;
}

}  // namespace fencesim::cli
