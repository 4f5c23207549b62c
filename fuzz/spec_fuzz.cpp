// TOML scenario specs (docs/specs.md): any text handed to register_spec_text is registered or
// refused with a SpecError of one line ("FILE:LINE: KEY: what is wrong"), never anything else.
#include <string>

#include "fuzz/fuzz_check.h"
#include "scenarios/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace scenarios = fencesim::scenarios;
  static const scenarios::ScenarioRegistry builtin = scenarios::builtin_scenarios();
  scenarios::ScenarioRegistry registry = builtin;
  const std::string text(fencesim::fuzz::as_text(data, size));
  try {
    const std::string name = scenarios::register_spec_text(registry, text, "fuzz.toml");
    const scenarios::Scenario* scenario = registry.find(name);
    fencesim::fuzz::check(scenario != nullptr, "a registered spec cannot be found by its name");
    fencesim::fuzz::check(scenario->spec_toml == text, "a spec's scenario does not carry its text");
  } catch (const scenarios::SpecError& error) {
    fencesim::fuzz::check_one_line(error);
  }
  return 0;
}
