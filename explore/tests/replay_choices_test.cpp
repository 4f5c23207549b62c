// A replay file keeps an explored schedule's choice log, and reads it back; files without one
// still read (as a seeded run's).
#include <gtest/gtest.h>

#include <filesystem>

#include "reports/replay_file.h"

namespace fencesim::reports::replay_choices_test {
namespace {

ReplayFile sample() {
  ReplayFile file;
  file.fencesim_version = std::string(fencesim_version());
  file.scenario = "explore-yield-sibling";
  file.seed = 1;
  file.strategy = "random";
  file.expected_status = "violation";
  file.expected_history_hash = "0123456789abcdef";
  return file;
}

TEST(ReplayChoices, TheChoiceLogRoundTrips) {
  ReplayFile file = sample();
  file.choices = std::vector<std::uint32_t>{0, 1, 0, 2, 4294967295u};
  const auto json = nlohmann::json::parse(to_json(file).dump());
  EXPECT_EQ(replay_file_from_json(json, "test"), file);
}

TEST(ReplayChoices, AFileWithoutChoicesHasNone) {
  const auto json = nlohmann::json::parse(to_json(sample()).dump());
  EXPECT_FALSE(json.contains("choices"));
  EXPECT_FALSE(replay_file_from_json(json, "test").choices.has_value());
}

TEST(ReplayChoices, ABadChoiceIsRefusedWithItsIndex) {
  auto json = nlohmann::json::parse(to_json(sample()).dump());
  json["choices"] = nlohmann::json::array({0, -1});
  try {
    replay_file_from_json(json, "test");
    FAIL() << "a negative choice was read";
  } catch (const ReplayFileError& error) {
    EXPECT_NE(std::string(error.what()).find("choices[1]"), std::string::npos) << error.what();
  }
  json["choices"] = "0,1";
  EXPECT_THROW(replay_file_from_json(json, "test"), ReplayFileError);
}

}  // namespace
}  // namespace fencesim::reports::replay_choices_test
