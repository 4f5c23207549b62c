#pragma once
// A fixture for tests that run the fencesim binary in a temporary directory of their own (the
// spec, shrink and corpus tests).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include "cli/tests/read_text.h"
#include "tests/paths.h"

namespace fencesim::cli::testing {

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("fencesim-" + std::string(info->test_suite_name()) + "-" + std::to_string(getpid()) +
            "-" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `fencesim ARGS` in the test's directory.
  CommandResult fencesim(const std::string& args) const {
    const std::string command =
        "cd '" + dir_.string() + "' && '" + fencesim::testing::fencesim_binary() + "' " + args + " >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    CommandResult result;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(dir_ / "out.txt");
    result.err = read_text(dir_ / "err.txt");
    return result;
  }

  void write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }
  std::string read(const std::string& name) const { return read_text(dir_ / name); }
  bool exists(const std::string& name) const { return std::filesystem::exists(dir_ / name); }
  nlohmann::json read_json(const std::string& name) const {
    return nlohmann::json::parse(read(name));
  }
  void write_json(const std::string& name, const nlohmann::json& json) const {
    write(name, json.dump(2));
  }

  std::filesystem::path dir_;
};

// One line on stderr, nothing on stdout, exit 2.
inline void expect_usage_error(const CommandResult& result, const std::string& line) {
  EXPECT_EQ(result.code, 2) << result.out << result.err;
  EXPECT_EQ(result.err, line + "\n");
  EXPECT_EQ(result.out, "");
}

}  // namespace fencesim::cli::testing
