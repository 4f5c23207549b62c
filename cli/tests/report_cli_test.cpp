// `fencesim run` and `fencesim replay` with --html and --perfetto: the run's page and trace are
// written for passing and failing runs, with the right replay command on the page; a file that
// cannot be written is one line and exit 2, before the run leaves anything behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include "tests/paths.h"

// A namespace of its own: the unity build compiles this file with others of cli/tests.
namespace fencesim::cli::report_cli_test {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The JSON embedded in a run page.
json page_timeline(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"fs-timeline\">";
  const auto start = page.find(open);
  if (start == std::string::npos) return json();
  const auto end = page.find("</script>", start);
  return json::parse(page.substr(start + open.size(), end - start - open.size()));
}

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("fencesim-report-cli-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result fencesim(const std::string& args) const {
    const std::string command =
        "cd '" + dir_.string() + "' && '" + fencesim::testing::fencesim_binary() + "' " + args + " >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    Result result;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(dir_ / "out.txt");
    result.err = read_text(dir_ / "err.txt");
    return result;
  }

  // Runs `COMMAND` (a line fencesim printed, "fencesim ...") through /bin/sh in the test's folder,
  // with the built binary for its first word.
  Result through_shell(const std::string& command) const {
    const std::string line = "cd '" + dir_.string() + "' && '" +
                             fencesim::testing::fencesim_binary() + "'" +
                             command.substr(std::string("fencesim").size()) +
                             " >out.txt 2>err.txt";
    const int status = std::system(line.c_str());
    Result result;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(dir_ / "out.txt");
    result.err = read_text(dir_ / "err.txt");
    return result;
  }

  fs::path dir_;
};

TEST_F(ReportCliTest, PassingRunWritesPageAndTrace) {
  const Result run =
      fencesim("run --scenario kleppmann-fencing --seed 1 --html run.html --perfetto run.json");
  ASSERT_EQ(run.code, 0) << run.err;
  const json timeline = page_timeline(read_text(dir_ / "run.html"));
  ASSERT_TRUE(timeline.is_object());
  EXPECT_EQ(timeline["status"], "pass");
  EXPECT_EQ(timeline["replay_command"],
            "fencesim run --scenario kleppmann-fencing --seed 1 --strategy random");
  EXPECT_FALSE(timeline["beliefs"].empty());
  const json trace = json::parse(read_text(dir_ / "run.json"));
  EXPECT_FALSE(trace["traceEvents"].empty());
  EXPECT_EQ(trace["otherData"]["scenario"], "kleppmann-fencing");
}

// Each of the two files is written when it alone is asked for, by a run and by a replay (red team
// 43a-13: the trace was drawn only beside a page, and `--perfetto` alone wrote "null").
TEST_F(ReportCliTest, EachFileIsWrittenWithoutTheOther) {
  const Result trace_only =
      fencesim("run --scenario kleppmann-fencing --seed 1 --perfetto run.json");
  ASSERT_EQ(trace_only.code, 0) << trace_only.err;
  const json trace = json::parse(read_text(dir_ / "run.json"));
  ASSERT_TRUE(trace.is_object()) << trace.dump().substr(0, 200);
  EXPECT_FALSE(trace["traceEvents"].empty());
  EXPECT_EQ(trace["otherData"]["scenario"], "kleppmann-fencing");

  const Result page_only = fencesim("run --scenario kleppmann-fencing --seed 1 --html run.html");
  ASSERT_EQ(page_only.code, 0) << page_only.err;
  const json timeline = page_timeline(read_text(dir_ / "run.html"));
  ASSERT_TRUE(timeline.is_object());
  EXPECT_FALSE(timeline["beliefs"].empty());

  const Result failing = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out r.json");
  ASSERT_EQ(failing.code, 1) << failing.err;
  const Result replay = fencesim("replay r.json --perfetto again.json");
  ASSERT_EQ(replay.code, 1) << replay.err;
  const json again = json::parse(read_text(dir_ / "again.json"));
  ASSERT_TRUE(again.is_object()) << again.dump().substr(0, 200);
  EXPECT_FALSE(again["traceEvents"].empty());
}

// The command a page prints runs as printed, through a POSIX shell, whatever the path it names:
// a spec in a folder with a space, its name with a quote (a passing run has no replay file, so its
// page says how to run it again: `fencesim run --spec ...`), and a failing run's replay file in
// such a folder (the first line `fencesim run` prints). Unquoted, the shell split the path.
TEST_F(ReportCliTest, TheCommandsARunPrintsRunThroughAShellWithSpacesAndQuotesInPaths) {
  fs::create_directories(dir_ / "my specs");
  fs::copy_file(fs::path(fencesim::testing::source_dir()) / "specs" / "stall-and-drift.toml",
                dir_ / "my specs" / "bob's drift.toml");
  const Result run = fencesim(R"(run --spec "my specs/bob's drift.toml" --seed 3 --json )"
                              "--html run.html");
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  const std::string hash = json::parse(run.out)["history_hash"];
  const std::string again = page_timeline(read_text(dir_ / "run.html"))["replay_command"];
  EXPECT_EQ(again, R"(fencesim run --spec 'my specs/bob'\''s drift.toml' --seed 3 --strategy )"
                   "random");
  ASSERT_TRUE(again.starts_with("fencesim ")) << again;
  const Result rerun = through_shell(again + " --json");
  ASSERT_EQ(rerun.code, 0) << again << "\n" << rerun.out << rerun.err;
  EXPECT_EQ(json::parse(rerun.out)["history_hash"], hash) << again;

  fs::create_directories(dir_ / "bob's runs");
  const Result failing = fencesim(
      R"(run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out )"
      R"("bob's runs/r 1.json")");
  ASSERT_EQ(failing.code, 1) << failing.out << failing.err;
  const std::string replay = failing.out.substr(0, failing.out.find('\n'));
  EXPECT_EQ(replay, R"(fencesim replay 'bob'\''s runs/r 1.json')");
  const Result replayed = through_shell(replay);
  EXPECT_EQ(replayed.code, 1) << replay << "\n" << replayed.out << replayed.err;
  EXPECT_NE(replayed.out.find("\nreplay matches bob's runs/r 1.json: status violation, "),
            std::string::npos)
      << replayed.out;
}

TEST_F(ReportCliTest, FailingRunAndItsReplayWriteTheSamePicture) {
  const Result run = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out r.json "
      "--html run.html --perfetto run.json");
  ASSERT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(run.out.substr(0, run.out.find('\n')), "fencesim replay r.json");
  const json first = page_timeline(read_text(dir_ / "run.html"));
  EXPECT_EQ(first["replay_command"], "fencesim replay r.json");
  ASSERT_FALSE(first["violations"].empty());

  const Result replay = fencesim("replay r.json --html again.html --perfetto again.json");
  ASSERT_EQ(replay.code, 1) << replay.err;
  const json second = page_timeline(read_text(dir_ / "again.html"));
  // The same world, drawn the same: the replay ran the plan the run recorded.
  EXPECT_EQ(second, first);
  EXPECT_EQ(read_text(dir_ / "again.json"), read_text(dir_ / "run.json"));
}

TEST_F(ReportCliTest, UnwritablePathsAreOneLineAndExitTwo) {
  Result result = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale --replay-out r.json "
      "--html missing/run.html");
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err,
            "fencesim: --html: cannot write 'missing/run.html': folder 'missing' does not exist\n");
  EXPECT_EQ(result.out, "");
  // Checked before the run: the run left nothing behind.
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));

  fs::create_directories(dir_ / "a-folder");
  result = fencesim("run --scenario kleppmann-fencing --seed 1 --perfetto a-folder");
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err, "fencesim: --perfetto: cannot write 'a-folder': it is a folder\n");

  result = fencesim(
      "run --scenario kleppmann-fencing --seed 1 --sink-double accept-stale "
      "--replay-out r.json");
  ASSERT_EQ(result.code, 1);
  result = fencesim("replay r.json --html missing/again.html");
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err,
            "fencesim: --html: cannot write 'missing/again.html': folder 'missing' does not "
            "exist\n");
}

}  // namespace

}  // namespace fencesim::cli::report_cli_test
