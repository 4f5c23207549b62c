// A sanitizer's report, as a worker leaves it on its stderr, becomes one line for the seed's
// record.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/sweep_last_words.h"

namespace fencesim::cli::last_words_test {
namespace {

TEST(SanitizerFinding, AddressSanitizerNamesTheKindAndTheSiteWithoutFolders) {
  const std::string report =
      "=================================================================\n"
      "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000050 at pc "
      "0x55d0 bp 0x7ffc sp 0x7ffc\n"
      "READ of size 4 at 0x602000000050 thread T0\n"
      "    #0 0x55d0 in use_after_free /work/x/scenarios/planted_bugs.cpp:34\n"
      "SUMMARY: AddressSanitizer: heap-use-after-free /work/x/scenarios/planted_bugs.cpp:34 in "
      "fencesim::scenarios::use_after_free(int)\n";
  EXPECT_EQ(sanitizer_finding(report),
            "AddressSanitizer: heap-use-after-free at planted_bugs.cpp:34 in "
            "fencesim::scenarios::use_after_free(int)");
}

TEST(SanitizerFinding, AddressSanitizerWithoutASummaryStillNamesTheKind) {
  EXPECT_EQ(
      sanitizer_finding("==1==ERROR: AddressSanitizer: global-buffer-overflow on address 0x1\n"),
      "AddressSanitizer: global-buffer-overflow");
}

TEST(SanitizerFinding, UndefinedBehaviorSanitizerNamesWhatAndWhere) {
  const std::string report =
      "some earlier line\n"
      "/work/x/scenarios/planted_bugs.cpp:40:19: runtime error: signed integer overflow: "
      "2147483000 + 1294 cannot be represented in type 'int'\n";
  EXPECT_EQ(sanitizer_finding(report),
            "UndefinedBehaviorSanitizer: signed integer overflow: 2147483000 + 1294 cannot be "
            "represented in type 'int' at planted_bugs.cpp:40:19");
}

TEST(SanitizerFinding, TheFirstFindingWins) {
  const std::string report =
      "a.cpp:1:2: runtime error: load of misaligned address\n"
      "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n";
  EXPECT_EQ(sanitizer_finding(report),
            "UndefinedBehaviorSanitizer: load of misaligned address at a.cpp:1:2");
}

TEST(SanitizerFinding, OtherLastWordsAreNoFinding) {
  EXPECT_EQ(sanitizer_finding(""), "");
  EXPECT_EQ(sanitizer_finding("terminate called after throwing an instance of 'x'\n"), "");
}

// A fresh sweep output folder named `name` (with its workers/ folder) holding `text` as the
// stderr of worker `pid`.
std::string output_with_stderr(const std::string& name, pid_t pid, const std::string& text) {
  const std::string out =
      (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(out);
  std::filesystem::create_directories(out + "/workers");
  std::ofstream(worker_stderr_path(out, pid), std::ios::binary) << text;
  return out;
}

// A worker that said much before it died: the last 256 KiB are kept, so that the report a
// sanitizer writes as the process ends is read, however long what came before it.
TEST(TakeLastWords, KeepsTheEndOfALongStderrWhereTheSanitizerReports) {
  const pid_t pid = 4242;
  const std::string report =
      "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n"
      "SUMMARY: AddressSanitizer: heap-use-after-free /work/x/a.cpp:3 in f()\n";
  const std::string out = output_with_stderr("fencesim-last-words", pid,
                                             std::string(300 * 1024, 'x') + '\n' + report);
  const LastWords words = take_last_words(out, pid);
  EXPECT_EQ(words.sanitizer, "AddressSanitizer: heap-use-after-free at a.cpp:3 in f()");
  EXPECT_EQ(words.text.size(), 256u * 1024);
  EXPECT_TRUE(words.text.ends_with(report));
  EXPECT_FALSE(std::filesystem::exists(worker_stderr_path(out, pid)));
  std::filesystem::remove_all(out);
}

// A worker's stderr may hold more than one "last events" line: a branch forked from it shares
// the file and says its own as it ends. The worker says its line just before it dies, so the line
// kept is the last one, not the branch's earlier one.
TEST(TakeLastWords, TheLastEventsLineKeptIsTheLastOne) {
  const pid_t pid = 4243;
  const std::string out = output_with_stderr(
      "fencesim-last-events", pid,
      "last events (oldest first): #7 a branch's own\n"
      "something the worker said\n"
      "last events (oldest first): #90 the worker's own, at its end\n");
  const LastWords words = take_last_words(out, pid);
  EXPECT_EQ(words.last_events, "last events (oldest first): #90 the worker's own, at its end");
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace fencesim::cli::last_words_test
