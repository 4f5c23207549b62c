// A spec is checked whole (scenarios/spec_values.h): the errors kept are reported in the order of
// their lines, each once. One mistake met twice (a bad mark written twice in one array, which
// reads as the same line and text) is one error, not two, and is counted once in the summary line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/spec.h"
#include "scenarios/spec_values.h"

namespace fencesim::scenarios::spec_reader_test {
namespace {

TEST(SpecReader, ErrorsAreReportedInLineOrderEachOnce) {
  const spec::SpecReader reader("x.toml");
  reader.note(3, "marks", "mark 'x y' is no mark");
  reader.note(3, "marks", "mark 'x y' is no mark");
  reader.note(2, "name", "missing");
  EXPECT_EQ(reader.error_count(), 3u);
  try {
    reader.throw_if_any();
    ADD_FAILURE() << "no error thrown";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.all(), (std::vector<std::string>{"x.toml:2: name: missing",
                                                     "x.toml:3: marks: mark 'x y' is no mark"}));
    EXPECT_EQ(std::string(error.what()),
              "x.toml:2: name: missing (and 1 more error: `fencesim check-spec x.toml` lists "
              "them all)");
    EXPECT_EQ(error.line(), 2u);
  }
}

TEST(SpecReader, AMarkWrittenTwiceIsOneError) {
  ScenarioRegistry registry = builtin_scenarios();
  try {
    register_spec_text(registry,
                       "name = \"bad\"\nworkload = \"kleppmann-fencing\"\n"
                       "marks = [\"x y\", \"x y\"]\n",
                       "bad.toml");
    ADD_FAILURE() << "no error thrown";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.all().size(), 1u) << error.what();
  }
}

}  // namespace
}  // namespace fencesim::scenarios::spec_reader_test
