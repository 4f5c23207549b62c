#pragma once
// A file's whole text, for the tests that read what the fencesim binary wrote (command_fixture.h,
// sweep_fixture.h): one definition, so that both fixtures can be compiled in one unity batch.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fencesim::cli::testing {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fencesim::cli::testing
