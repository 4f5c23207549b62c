// C++ scenarios register themselves (issue 31, item 5): a file of scenarios/ holding a
// ScenarioRegistration is built in with no other edit. The linker drops an archive member nothing
// refers to, so this checks that every such file's registration is linked, reading the folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "scenarios/scenario.h"
#include "tests/paths.h"

namespace fencesim::scenarios::registration_test {
namespace {

// The files of scenarios/ that hold a registration at namespace scope.
std::set<std::string> registering_files() {
  std::set<std::string> files;
  const std::filesystem::path folder = fencesim::testing::source_dir() + "/scenarios";
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("\nconst ScenarioRegistration ") != std::string::npos) {
      files.insert(entry.path().filename().string());
    }
  }
  return files;
}

TEST(Registration, EveryRegisteringFileOfTheFolderIsLinkedIn) {
  std::set<std::string> linked;
  for (const ScenarioRegistration::Entry& entry : ScenarioRegistration::all()) {
    EXPECT_TRUE(linked.insert(entry.file).second) << entry.file << " registers twice";
  }
  const std::set<std::string> files = registering_files();
  EXPECT_GE(files.size(), 8u);
  EXPECT_EQ(linked, files);
}

TEST(Registration, EachLinkedFileAddsScenariosAndTheBuiltInsAreThem) {
  std::size_t total = 0;
  for (const ScenarioRegistration::Entry& entry : ScenarioRegistration::all()) {
    ScenarioRegistry one;
    entry.function(one);
    // The planted bugs are test only: they register nothing unless asked.
    if (entry.file != "planted_bugs.cpp") {
      EXPECT_FALSE(one.all().empty()) << entry.file << " registers no scenario";
    }
    total += one.all().size();
  }
  EXPECT_EQ(builtin_scenarios().all().size(), total);
  EXPECT_NE(builtin_scenarios().find("kleppmann-fencing"), nullptr);
  EXPECT_NE(builtin_scenarios().find("nightly-mix"), nullptr);
}

}  // namespace
}  // namespace fencesim::scenarios::registration_test
