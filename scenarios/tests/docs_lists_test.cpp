// The docs list what the code defines, and a test holds them to it: the event names a trigger
// accepts, the fault kinds and what each does, the step kinds, the options (docs/specs.md) and
// the sink doubles. A name added to the code and not to the page (or the other way) fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "properties/run.h"
#include "scenarios/scenario.h"
#include "scenarios/spec_lists.h"
#include "sim/fault.h"
#include "tests/paths.h"

namespace fencesim::scenarios::spec::docs_lists_test {
namespace {

std::string specs_page() {
  std::ifstream in(fencesim::testing::source_dir() + "/docs/specs.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The `quoted` names between <!-- NAME --> and <!-- /NAME -->.
std::vector<std::string> quoted_in_block(const std::string& page, const std::string& name) {
  const std::string open = "<!-- " + name + " -->";
  const std::size_t from = page.find(open);
  const std::size_t to = page.find("<!-- /" + name + " -->");
  EXPECT_NE(from, std::string::npos) << "docs/specs.md has no block " << open;
  if (from == std::string::npos || to == std::string::npos) return {};
  const std::string block = page.substr(from, to - from);
  std::vector<std::string> names;
  // A name opens a line ("`a`, `b`" or "- `a`: what it does") or follows ", " in a list.
  const std::regex quoted("\\n(?:- )?`([a-z-]+)`|, `([a-z-]+)`|^`([a-z-]+)`");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    for (std::size_t group = 1; group <= 3; ++group) {
      if ((*it)[group].matched) names.push_back((*it)[group].str());
    }
  }
  return names;
}

// The first column of the markdown table rows that start with "| `name` |".
std::set<std::string> first_column(const std::string& page, const std::string& after_heading) {
  std::set<std::string> names;
  const std::size_t from = page.find(after_heading);
  EXPECT_NE(from, std::string::npos) << after_heading;
  if (from == std::string::npos) return names;
  std::istringstream lines(page.substr(from));
  std::string line;
  bool in_table = false;  // after the table's "|---" line: its header row is no name
  while (std::getline(lines, line)) {
    if (line.starts_with("|---")) {
      in_table = true;
    } else if (in_table && line.starts_with("| `")) {
      names.insert(line.substr(3, line.find('`', 3) - 3));
    } else if (in_table) {
      break;
    }
  }
  return names;
}

TEST(DocsLists, EventNamesAreTheRuntimes) {
  EXPECT_EQ(quoted_in_block(specs_page(), "event-names"), event_names());
}

TEST(DocsLists, FaultKindsAreTheWorlds) {
  EXPECT_EQ(quoted_in_block(specs_page(), "fault-kinds"), fault_kind_names());
  // The [[fault]] table's `kind` row lists them all too.
  const std::string page = specs_page();
  const std::size_t row = page.find("| `kind` | required | ");
  ASSERT_NE(row, std::string::npos);
  const std::string line = page.substr(row, page.find('\n', row) - row);
  for (const std::string& kind : fault_kind_names()) {
    EXPECT_NE(line.find("`" + kind + "`"), std::string::npos) << kind << " in: " << line;
  }
}

TEST(DocsLists, DeadlinesAreTheWorlds) {
  // Each name the parser accepts is the world's (sim::Aim), and the page lists exactly them.
  std::vector<std::string> aims;
  for (std::string_view name : kAimNames) {
    ASSERT_TRUE(sim::aim_from_string(name).has_value()) << name;
    aims.emplace_back(name);
  }
  EXPECT_EQ(quoted_in_block(specs_page(), "deadlines"), aims);
  for (std::string_view name : kUntilNames) {
    EXPECT_NE(std::find(kAimNames.begin(), kAimNames.end(), name), kAimNames.end()) << name;
  }
}

TEST(DocsLists, StepKindsAndOptionsAreTheParsers) {
  const std::string page = specs_page();
  std::set<std::string> kinds;
  for (const StepKindKeys& kind : step_kinds()) kinds.insert(std::string(kind.kind));
  EXPECT_EQ(first_column(page, "Step kinds ("), kinds);
  const std::set<std::string> options(kOptionNames.begin(), kOptionNames.end());
  EXPECT_EQ(first_column(page, "## `[options]`"), options);
}

TEST(DocsLists, EverySinkDoubleListedRuns) {
  // The list --help and errors print is the list run_scenario knows: each name runs.
  const ScenarioRegistry registry = builtin_scenarios();
  std::istringstream list(properties::sink_double_list());
  std::string name;
  int count = 0;
  while (std::getline(list, name, ',')) {
    if (name.starts_with(' ')) name.erase(0, 1);
    properties::RunRequest request;
    request.scenario = "kleppmann-fencing";
    request.seed = 1;
    request.sink_double = name;
    EXPECT_NO_THROW(properties::run_scenario(registry, request)) << name;
    ++count;
  }
  EXPECT_EQ(count, 2);
  properties::RunRequest unknown;
  unknown.scenario = "kleppmann-fencing";
  unknown.sink_double = "nope";
  EXPECT_THROW(properties::run_scenario(registry, unknown), properties::UsageError);
}

}  // namespace
}  // namespace fencesim::scenarios::spec::docs_lists_test
