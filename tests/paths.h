#pragma once
// Where a test finds fencesim's sources and the programs it starts. Never compiled into an object:
// an absolute path in a compile definition makes every test object differ between two checkouts
// of one commit, and ccache then rebuilds them all (a mutant's copy, a second worktree, CI).
// Read at run time from the environment (FENCESIM_SOURCE_DIR, FENCESIM_BINARY,
// FENCESIM_RACE_WORKER), else from the build folder's fencesim-test-paths.txt, which CMake writes
// (CMakeLists.txt) and which is found by walking up from the test executable, so a test runs the
// same from CTest and by hand.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace fencesim::testing {

namespace paths_detail {

inline std::map<std::string, std::string> read_paths_file() {
  std::error_code error;
  std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", error).parent_path();
  for (; !error && !dir.empty(); dir = dir.parent_path()) {
    const std::filesystem::path file = dir / "fencesim-test-paths.txt";
    if (std::filesystem::exists(file)) {
      std::map<std::string, std::string> paths;
      std::ifstream in(file);
      for (std::string line; std::getline(in, line);) {
        const std::size_t equals = line.find('=');
        if (equals != std::string::npos) paths[line.substr(0, equals)] = line.substr(equals + 1);
      }
      return paths;
    }
    if (dir == dir.root_path()) break;
  }
  return {};
}

inline std::string path(const char* environment, const char* key) {
  if (const char* value = std::getenv(environment); value != nullptr && *value != '\0') {
    return value;
  }
  static const std::map<std::string, std::string> file = read_paths_file();
  const auto found = file.find(key);
  if (found == file.end()) {
    throw std::runtime_error(std::string("tests/paths.h: set ") + environment +
                             " or run the test from its build folder (fencesim-test-paths.txt)");
  }
  return found->second;
}

}  // namespace paths_detail

// The root of the checkout the test was built from.
inline std::string source_dir() { return paths_detail::path("FENCESIM_SOURCE_DIR", "source_dir"); }
// The `fencesim` command of the same build.
inline std::string fencesim_binary() { return paths_detail::path("FENCESIM_BINARY", "fencesim"); }
// The reference SQL race's worker (stores/race/).
inline std::string race_worker() {
  return paths_detail::path("FENCESIM_RACE_WORKER", "race_worker");
}

}  // namespace fencesim::testing
