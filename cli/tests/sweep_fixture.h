#pragma once
// The fencesim binary run from a test's own temporary folder, for the sweep and merge tests.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
#include "cli/tests/read_text.h"
#include "tests/paths.h"

namespace fencesim::cli::testing {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline nlohmann::json read_json(const fs::path& path) {
  return nlohmann::json::parse(read_text(path));
}

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("fencesim-" + std::string(info->test_suite_name()) + "-" +
                                        std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    // A folder a test made unwritable must be writable again to be removed.
    std::error_code ignored;
    for (const auto& entry : fs::recursive_directory_iterator(dir_, ignored)) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
    fs::remove_all(dir_, ignored);
  }

  // Runs `[ENV] fencesim ARGS` in the test's folder; `env` is a prefix such as "X=1 ".
  Result fencesim(const std::string& args, const std::string& env = "") const {
    const std::string command = "cd '" + dir_.string() + "' && " + env + "'" + fencesim::testing::fencesim_binary() + "' " +
                                args + " >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    Result result;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(dir_ / "out.txt");
    result.err = read_text(dir_ / "err.txt");
    return result;
  }

  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  // Rewrites `folder`'s sweep.json as a fencesim wrote it before the branch options were
  // recorded: no branch_at, no branches (a branching folder then reads as plain).
  void forget_branch_options(const std::string& folder) const {
    nlohmann::json config = read_json(path(folder + "/sweep.json"));
    config["configuration"].erase("branch_at");
    config["configuration"].erase("branches");
    write(folder + "/sweep.json", config.dump(2));
  }

  fs::path dir_;
};

// One line on stderr naming what is wrong, nothing on stdout, exit 2.
inline void expect_usage_error(const Result& result, const std::string& line) {
  EXPECT_EQ(result.code, 2) << result.out << result.err;
  EXPECT_EQ(result.err, "fencesim: " + line + "\n");
  EXPECT_EQ(result.out, "");
}

// The runs of a runs.jsonl, without what may differ between two sweeps of the same seeds: nothing
// (wall time is kept in run_times.jsonl).
inline std::vector<nlohmann::json> runs(const fs::path& folder) {
  std::vector<nlohmann::json> out;
  for (const std::string& line : read_lines(folder / "runs.jsonl")) {
    out.push_back(nlohmann::json::parse(line));
  }
  return out;
}

}  // namespace fencesim::cli::testing
